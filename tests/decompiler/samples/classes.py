"""placeholder"""
CONSTRUCT = "classes"
