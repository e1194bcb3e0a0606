// Creating nodes. Text is always set with textContent, never as markup.

export const SVG = "http://www.w3.org/2000/svg";

export function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (parent) parent.appendChild(e);
  return e;
}

export function sv(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
