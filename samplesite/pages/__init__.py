"""The sample site's page templates, one module per kind; `samplesite.render` routes to them.

Import from the modules themselves (one import path per name).
"""
