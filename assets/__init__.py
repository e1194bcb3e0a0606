"""Static content: presets (the chapter's example first), ko/en strings, lesson texts."""
