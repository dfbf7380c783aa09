"""The built-in measure families, one module per theme; each module registers its families
(:func:`fuzzytruth.measures.register`) when the registry is first used, and a new module here
is found without editing anything else."""
