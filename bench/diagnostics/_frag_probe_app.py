import sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from streamlit.runtime.fragment import MemoryFragmentStorage
if not getattr(MemoryFragmentStorage, "_probed", False):
    orig = MemoryFragmentStorage.order_fragment_ids
    def probe(self, ids):
        t0 = time.perf_counter()
        out = orig(self, ids)
        dt = time.perf_counter() - t0
        depth = max((len(list(self._iter_ancestor_ids(i))) for i in ids), default=0)
        with open("/tmp/fragdbg/log", "a") as f:
            f.write(f"{len(ids)} {depth} {len(self._parent_by_id)} {len(self._fragments)} {dt*1e3:.3f}\n")
        return out
    MemoryFragmentStorage.order_fragment_ids = probe
    MemoryFragmentStorage._probed = True
import page
page.main()
