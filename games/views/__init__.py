"""Pages and JSON endpoints of the games app, one module per audience or feature."""
