"""golden/rd."""
