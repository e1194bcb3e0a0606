"""Pure computation for Embedding Explorer: no streamlit import anywhere below here.

The data path runs one way: vocabulary + sentences (what the learner edits) → `Vocab` and
`Batch` (ids, mask, lengths) → `Lab` (embedding, toy classifier, training history) →
`Projection` (one PCA frame for every snapshot). Components draw what these return.
"""
