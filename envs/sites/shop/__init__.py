"""The shop contract site: products, sellers, conditions, warranties, decoys and walls."""
