"""attnsig: the companion package of the executable textbook on attention and path signatures."""
__version__ = "0.1.0"
