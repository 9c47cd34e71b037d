/**
 * Pictures in the chat input (docs/images.md): what may be attached, checked the way
 * the server checks them, so a wrong file is refused at once with the same words.
 * Pure functions: shared by the webview, the extension host and the unit tests.
 */
import type { ImageData, ImageParam, ImageType } from '../protocol';

/** 3.75 MiB: the server's limit (karyi.core.images.MAX_IMAGE_BYTES). */
export const MAX_IMAGE_BYTES = 3_932_160;
export const MAX_IMAGES = 8;
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** The media type the first bytes say, or undefined for anything else. */
export function sniff(bytes: Uint8Array): string | undefined {
  const at = (i: number, ...b: number[]) => b.every((v, k) => bytes[i + k] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

/** A picture from a file's bytes, or the reason it cannot be attached. */
export function imageFrom(bytes: Uint8Array, name: string): ImageData | string {
  if (bytes.length > MAX_IMAGE_BYTES) {
    return `${name} is ${(bytes.length / 1048576).toFixed(1)} MiB; the limit is 3.75 MiB.`;
  }
  const mimeType = sniff(bytes);
  if (!mimeType) return `${name} is not a PNG, JPEG, GIF or WebP picture.`;
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { mimeType, data: btoa(binary), name };
}

/** A picture as `karyi/chat` takes it: a media type the server does not know is left
 * out (it believes the bytes, not the word). */
export function imageParam(image: ImageData): ImageParam {
  const known = (IMAGE_TYPES as readonly string[]).includes(image.mimeType);
  return { data: image.data, name: image.name, mimeType: known ? (image.mimeType as ImageType) : undefined };
}

/** A `data:` URL for an `<img>` (the webview's CSP allows `img-src data:`). */
export function dataUrl(image: ImageData): string {
  return `data:${image.mimeType};base64,${image.data}`;
}
