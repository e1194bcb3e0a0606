// The app's one visual language, defined once: W's diverging scale, and the colours and shapes of
// roles and classes. The stage imports it; Python reads the same object (components/palette.py), so
// the lessons, the replay and the stage give one value one colour. Keep the object strict JSON
// (double quotes, no trailing commas, no comments inside it).
export const PALETTE = {
  "heat": {
    "gamma": 0.85,
    "light": {"mid": [247, 247, 247], "neg": [0, 90, 160], "pos": [200, 110, 0]},
    "dark": {"mid": [38, 41, 48], "neg": [86, 170, 230], "pos": [240, 170, 40]}
  },
  "classes": {
    "colors": ["#0072B2", "#E69F00", "#CC79A7", "#009E73", "#D55E00", "#56B4E9"],
    "shapes": ["circle", "triangle", "square45", "tri_down", "hexagon", "cross"]
  },
  "roles": {
    "light": {"pad": "#202124", "noclass": "#5f6368", "unused": "#80868b", "ink": "#202124", "bg": "#ffffff"},
    "dark": {"pad": "#f1f3f4", "noclass": "#bdc1c6", "unused": "#9aa0a6", "ink": "#fafafa", "bg": "#0e1117"},
    "shapes": {"pad": "diamond", "unk": "square", "unused": "circle", "noclass": "circle"}
  }
};
