/** A bench child's setting from its environment, which its parent must have given. */
export function requiredSetting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}
