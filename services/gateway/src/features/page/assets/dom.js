// Small helpers over the DOM: typed look-ups and an element builder, so views never assemble HTML strings.

/**
 * The element with this id, checked to be of the expected kind.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`#${id} is missing or not a ${type.name}`);
  return element;
}

/** @typedef {Node | string | number | null | undefined | false} Child */

/**
 * An element with attributes, event handlers (`onclick`, ...) and children; text is always set as text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean | EventListener | undefined>} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {Child[]} children
 */
function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces an element's content.
 * @param {Element} parent
 * @param {...Child} children
 */
export function fill(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * Puts a message in a status region (role="status"), which stays in place so screen readers announce changes.
 * @param {HTMLElement} region
 * @param {string} text
 */
export function say(region, text) {
  region.textContent = text;
}

/**
 * Shows an error in an alert region (role="alert"), or hides the region when the text is empty.
 * @param {HTMLElement} region
 * @param {string} text
 */
export function showError(region, text) {
  region.textContent = text;
  region.hidden = text === '';
}
