"""placeholder"""
CONSTRUCT = "exceptions_loops"
