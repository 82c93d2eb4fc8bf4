"""A package four names deep, for `import samples.deep.er.leaf as x`."""
