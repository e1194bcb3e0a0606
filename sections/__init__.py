"""One module per section of the page: composes components and applies their intents through core.

page.py picks the section; only these modules and page.py change the session's lab.
"""
