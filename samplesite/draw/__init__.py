"""The generator's parts, one per component of the site; `samplesite.generator` assembles them.

Import from the modules themselves (one import path per name).
"""
