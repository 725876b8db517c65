# Generated from openapi/openapi.json (npm run openapi): the package is versioned with the API.
__version__ = "1.0.0"
