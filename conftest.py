# Repo-level conftest: the plugin itself is loaded through its pytest11 entry point.
pytest_plugins = ["pytester"]
