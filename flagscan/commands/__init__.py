"""cli: one module per subcommand; each parses options, calls the library and renders."""
