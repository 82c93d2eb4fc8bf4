"""placeholder"""
CONSTRUCT = "exceptions"
