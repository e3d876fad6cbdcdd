"""golden/configs."""
