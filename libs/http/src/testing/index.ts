/**
 * What tests reach inside the HTTP library for, kept out of its public index: the guard and accessor of a
 * signed developer identity, for fake upstreams that authenticate the way contract routes do; the signature
 * header, for requests that forge one; and the walk that finds a control character in a parsed body.
 */
export { developerIdOf, IDENTITY_SIGNATURE_HEADER, requireDeveloper } from '../developer-identity.js';
export { controlCharacterPath } from '../control-characters.js';
