/** Longest slug: route names, subscription names and job names. */
export const SLUG_MAX = 64;

/**
 * "My Hook!" -> "my-hook": lower case, accents dropped, every run of other characters one "-", no
 * "-" or "_" at either end, cut at `maxLength` on a "-" when one is near. Empty when nothing usable is left.
 */
export function slugify(text: string, maxLength = SLUG_MAX): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
  if (slug.length <= maxLength) return slug;
  const cut = slug.slice(0, maxLength);
  if (slug[maxLength] === '-') return cut.replace(/[-_]+$/, ''); // the cut falls between two words
  const dash = cut.lastIndexOf('-');
  return (dash > maxLength / 2 ? cut.slice(0, dash) : cut).replace(/[-_]+$/, '');
}
