"""One module per section of the page: composes components and applies their intents through core.

app.py picks the section; only these modules and app.py change the session's lab.
"""
