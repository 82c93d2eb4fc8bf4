"""placeholder"""
CONSTRUCT = "type_params"
