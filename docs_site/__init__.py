"""What builds the documentation site (mkdocs.yml's hooks): pages generated from the code, and
links to the repository's files outside `docs/` that work on GitHub and in the site alike."""
