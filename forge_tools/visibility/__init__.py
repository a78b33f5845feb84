"""The three visibility layers (SPEC 3) and the pipeline that runs them: candidates -> kept + dropped.

Import the submodules directly (`forge_tools.visibility.pipeline` ...); this package stays empty so
importing one layer does not pull in the others.
"""
