// The developer's API key for this tab: sessionStorage only, so it never reaches a URL, a log or another tab.

const STORAGE_KEY = 'timetable.apiKey';

/** @returns {string | null} */
export function currentKey() {
  return sessionStorage.getItem(STORAGE_KEY);
}

/** @param {string} key */
export function rememberKey(key) {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey() {
  sessionStorage.removeItem(STORAGE_KEY);
}
