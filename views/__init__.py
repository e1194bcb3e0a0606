"""Views as data: what a view of the page draws, computed from the explorer with no streamlit (sections draw it)."""
