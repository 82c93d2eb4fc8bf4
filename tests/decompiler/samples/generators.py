"""placeholder"""
CONSTRUCT = "generators"
