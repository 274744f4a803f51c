// Copy buttons: the clipboard API where the browser allows it, else the text is selected for Ctrl+C.
import { say } from './dom.js';

/**
 * @typedef {object} CopyButton
 * @property {HTMLButtonElement} button
 * @property {HTMLInputElement} source
 * @property {HTMLElement} status
 */

/** @param {CopyButton} parts */
export function copyButton({ button, source, status }) {
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(source.value);
      say(status, 'Copied.');
    } catch {
      source.focus();
      source.select();
      say(status, 'Selected: press Ctrl+C (or ⌘+C) to copy.');
    }
  });
}
