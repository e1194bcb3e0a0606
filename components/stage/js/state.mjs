// The stage's state, declared in one place: every property a mounted stage (createStage) and its
// scatter (createScatter) ever hold is named and typed here and created here; other modules only
// assign them (the objects are sealed, so a property added elsewhere is an error, and
// tests/js/state.test.mjs checks every use against these lists). Nothing is kept on DOM nodes:
// per-node measurements live in WeakMaps (`boxes`).

/**
 * @typedef {{ids: number[], x: Float64Array, y: Float64Array}} Shown
 *   where the points are drawn now, in data coordinates (mid-glide included)
 * @typedef {{step: number|null, x: Float64Array, y: Float64Array}} Keyframe
 * @typedef {object} Glide a glide under way (motion.mjs)
 * @property {number[]} ids the scatter's ids it moves
 * @property {Keyframe[]} keyframes from where the points were to the data's picture
 * @property {number} segMs ms per segment
 * @property {boolean} linear Play (linear, one segment per step) or one eased update
 * @property {number} t0 the clock's time the first segment started
 * @typedef {{e: number, shown: number, dec: number, fs: number, nums: boolean, cw?: number}} ColumnPlan
 *   columns of a heatmap grid (gridplan.planColumns): of e, `shown` written with `dec` decimals at
 *   `fs` px, or colours only (nums false); cw the columns' width when colours only
 * @typedef {object} KeptW W's grid as built, refilled in place while its shape holds (wgrid.mjs)
 * @property {HTMLElement} panel the panel it was built in
 * @property {string} shape what the grid's rows, columns and words depend on
 * @property {string|null} focusKey the rows in focus it was planned for (null: every row readable alike)
 * @property {ColumnPlan} plan
 * @property {HTMLElement} grid
 * @property {HTMLElement} keyLo the colour key's ends
 * @property {HTMLElement} keyHi
 * @property {Array<{id: number, r: number, row: HTMLElement, cells: HTMLElement[], gc: HTMLElement|null,
 *   cnt: HTMLElement|null, role: string, nums: boolean}>} rows the built rows: id, index in data.w.rows, nodes,
 *   "pad"|"unk"|"", whether it shows numbers (a strip of context does not)
 * @property {{room: number, fs: number, family: string}|null} gradFit the gradient cells' room and type
 * @typedef {{key: string, marks: object[], labs: Map<number, SVGTextElement>}} LabelPlan
 *   the scatter's marks and labels as measured for planning (labels.mjs), valid while `key` holds
 */

/**
 * @typedef {object} Stage
 * @property {HTMLElement} root the [data-testid="stage"] node
 * @property {HTMLElement} parentElement Streamlit's mount point
 * @property {((name: string, value: any) => void)|null} setStateValue Streamlit's, from the last call
 * @property {object|null} data the data drawn last
 * @property {string|object} sig the last data's identity: its JSON, or the object itself when big
 * @property {string} layoutSig what the panels' layout depends on (rebuilt when it changes)
 * @property {number} width the root's width the layout was made for
 * @property {boolean|null} dark the theme (null until first read)
 * @property {number} renders renders so far (a label plan made for earlier data is not used)
 * @property {number} updates data updates drawn (data-updates)
 * @property {number} frames animation frames drawn (data-frames)
 * @property {number} settled pictures settled (data-settled)
 * @property {number} raf the pending animation frame
 * @property {Glide|null} anim the glide under way
 * @property {Shown|null} shown
 * @property {string|null} hover the hovered token (as in data-token)
 * @property {number|null} selected the selected id
 * @property {ResizeObserver|null} resize
 * @property {(() => void)|null} onFonts the page's "fonts loaded" listener
 * @property {number} fontsRaf the frame that redraws after fonts loaded
 * @property {CanvasRenderingContext2D|null} measure a canvas context for measuring text
 * @property {{marks: WeakMap<Element, object>, labels: WeakMap<Element, object>}} boxes measured
 *   mark outlines and label boxes per node (measure.mjs)
 * @property {LabelPlan|null} labelPlan
 * @property {ColumnPlan|null} wPlan W's column plan (the output copies it)
 * @property {KeptW|null} w W's grid as built
 * @property {Scatter|null} scatter the scatter's frame and points (null until built)
 * @property {HTMLElement|null} stepNum the head's nodes (training)
 * @property {SVGSVGElement|null} lossSvg
 * @property {HTMLElement|null} lossNum
 * @property {HTMLElement|null} legend
 * @property {number[]} loss the loss history the head draws (data.loss) and the step of its last value
 * @property {number} lossLast
 * @property {number|null} headStep the step a Play glide last named in the head (null: none yet)
 * @property {HTMLElement|null} scatterPanel the panels (null when the layout has none)
 * @property {HTMLElement|null} wPanel
 * @property {HTMLElement|null} idsPanel
 * @property {HTMLElement|null} outPanel
 * @property {HTMLElement|null} neighBox the neighbours row under the plot
 * @property {SVGSVGElement|null} wires the lookup's wires layer
 * @property {number} idScroll the id matrix's scroll offset, kept when it is built again
 * @property {number} idB the sentence the id matrix was last built around (out.b)
 * @property {{first: number|null, at: number|null, sel: number|null, b: number, t: number}|null} idPage
 *   the id matrix's columns as the learner last moved them: the first column a "… +k" marker paged
 *   to, or the place of a clicked cell; and the selection, sentence and length it holds for
 * @property {{first: number, shown: number, b: number, t: number}|null} idWin the id matrix's columns
 *   as drawn last, for the sentence and length they were drawn for
 * @property {number} wScroll W's rows' scroll offset (when they scroll), kept when they are built again
 * @property {number} outScroll the output's rows' scroll offset, the same way, for the sentence it shows
 * @property {number} outB the sentence the output was last built for (out.b)
 */

/** @returns {Stage} */
export function createStage(root, parentElement) {
  return Object.seal({
    root, parentElement, setStateValue: null,
    data: null, sig: "", layoutSig: "", width: 0, dark: null, renders: 0,
    updates: 0, frames: 0, settled: 0,
    raf: 0, anim: null, shown: null, hover: null, selected: null,
    resize: null, onFonts: null, fontsRaf: 0,
    measure: null, boxes: { marks: new WeakMap(), labels: new WeakMap() }, labelPlan: null,
    wPlan: null, w: null, scatter: null,
    stepNum: null, lossSvg: null, lossNum: null, legend: null, loss: [], lossLast: 0, headStep: null,
    scatterPanel: null, wPanel: null, idsPanel: null, outPanel: null, neighBox: null, wires: null,
    idScroll: 0, idB: -1, idPage: null, idWin: null, wScroll: 0, outScroll: 0, outB: -1,
  });
}

/**
 * @typedef {object} Scatter
 * @property {HTMLElement} plot
 * @property {HTMLCanvasElement} canvas the bulk of the points when canvasMode
 * @property {SVGSVGElement} svg
 * @property {SVGGElement} axes the SVG layers, bottom to top
 * @property {SVGGElement} trails
 * @property {SVGGElement} points
 * @property {SVGGElement} top PAD's layer
 * @property {number} W the plot's size in px
 * @property {number} H
 * @property {{l: number, r: number, t: number, b: number}} m margins around the frame
 * @property {number} dpr device pixels per css px
 * @property {number[]} ids data.scatter's ids, roles and classes drawn now
 * @property {string[]} roles
 * @property {number[]} clss
 * @property {boolean} canvasMode
 * @property {number[]|null} range [x0, x1, y0, y1] (scale.plotRange)
 * @property {string} axesSig what the axes were drawn for
 * @property {string} sig what the point nodes were built for
 * @property {Map<number, SVGGElement>} nodes point index → its node
 * @property {Float32Array|null} px the points' pixels as drawn now
 * @property {Float32Array|null} py
 * @property {object|null} trail data.scatter.trail
 * @property {{tr: object, ids: number[], range: number[], lines: object[]}|null} trailCache the trails' polylines
 * @property {boolean} canvasDirty the canvas holds pixels to clear
 * @property {{ids: number[], dark: boolean, list: Array}|null} groups the canvas's points by colour
 * @property {ImageData|null} image the canvas's pixels
 * @property {Uint32Array|null} pixels
 * @property {SVGGElement|null} hoverMarker the hovered canvas point's ring
 * @property {boolean} hoverPending a hover lookup waits for the next frame
 */

/** @returns {Scatter} */
export function createScatter({ plot, canvas, svg, axes, trails, points, top, W, H, m, dpr }) {
  return Object.seal({
    plot, canvas, svg, axes, trails, points, top, W, H, m, dpr,
    ids: [], roles: [], clss: [], canvasMode: false, range: null, axesSig: "", sig: "",
    nodes: new Map(), px: null, py: null, trail: null, trailCache: null,
    canvasDirty: true, groups: null, image: null, pixels: null, hoverMarker: null, hoverPending: false,
  });
}
