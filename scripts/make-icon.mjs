#!/usr/bin/env node
// Draws the app icon, build/icon.png (512x512 RGBA), from code: a rounded square with a blue
// to teal gradient and a white "transfer" mark (two opposed arrows). electron-builder derives
// the macOS .icns, the Windows .ico and the Linux icon set from it.
//
//   node scripts/make-icon.mjs [OUT.png]
//
// No image library: shapes are signed distance functions, anti-aliased from the distance, and
// the PNG is encoded with node:zlib. The output is deterministic, so the committed PNG can be
// regenerated and compared.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 512;

// --- signed distance functions (negative inside), in pixels --------------------------------

function roundedBox(px, py, cx, cy, halfW, halfH, r) {
  const qx = Math.abs(px - cx) - halfW + r;
  const qy = Math.abs(py - cy) - halfH + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

function capsule(px, py, ax, ay, bx, by, r) {
  const pax = px - ax;
  const pay = py - ay;
  const bax = bx - ax;
  const bay = by - ay;
  const h = Math.min(Math.max((pax * bax + pay * bay) / (bax * bax + bay * bay), 0), 1);
  return Math.hypot(pax - bax * h, pay - bay * h) - r;
}

/** Exact distance to a convex or concave polygon (Inigo Quilez's formulation). */
function polygon(px, py, pts) {
  let d = (px - pts[0][0]) ** 2 + (py - pts[0][1]) ** 2;
  let s = 1;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i, i++) {
    const [vix, viy] = pts[i];
    const [vjx, vjy] = pts[j];
    const ex = vjx - vix;
    const ey = vjy - viy;
    const wx = px - vix;
    const wy = py - viy;
    const t = Math.min(Math.max((wx * ex + wy * ey) / (ex * ex + ey * ey), 0), 1);
    d = Math.min(d, (wx - ex * t) ** 2 + (wy - ey * t) ** 2);
    const c1 = py >= viy;
    const c2 = py < vjy;
    const c3 = ex * wy > ey * wx;
    if ((c1 && c2 && c3) || (!c1 && !c2 && !c3)) s = -s;
  }
  return s * Math.sqrt(d);
}

/** An arrow along y = `y` from x0 to the tip at x1 (either direction). */
function arrow(px, py, x0, x1, y) {
  const dir = Math.sign(x1 - x0);
  const headLength = 78;
  const headHalf = 62;
  const round = 7;
  const shaft = capsule(px, py, x0, y, x1 - dir * (headLength - 4), y, 19);
  const tip = x1 - dir * round;
  const base = x1 - dir * headLength;
  const head =
    polygon(px, py, [
      [tip, y],
      [base + dir * round * 0.5, y - headHalf + round],
      [base + dir * round * 0.5, y + headHalf - round],
    ]) - round;
  return Math.min(shaft, head);
}

const mark = (x, y) => Math.min(arrow(x, y, 150, 374, 200), arrow(x, y, 362, 138, 312));

// --- colours ---------------------------------------------------------------------------------

const mix = (a, b, t) => a + (b - a) * t;
const clamp01 = (v) => Math.min(Math.max(v, 0), 1);
const coverage = (d) => clamp01(0.5 - d);

const TOP_LEFT = [37, 99, 235]; // blue-600
const BOTTOM_RIGHT = [13, 148, 136]; // teal-600
const MARK = [248, 250, 252]; // slate-50
const SHADOW = [8, 30, 66];

export function renderIcon() {
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      const bg = coverage(roundedBox(px, py, 256, 256, 224, 224, 100));
      if (bg === 0) continue;
      const t = clamp01((px + py - 64) / (2 * SIZE - 128));
      let c = TOP_LEFT.map((v, i) => mix(v, BOTTOM_RIGHT[i], t));
      // A soft highlight at the top and a soft shadow under the mark give it some depth.
      const highlight = clamp01(1 - py / 260) * 0.1;
      c = c.map((v) => mix(v, 255, highlight));
      const shadow = clamp01((10 - mark(px - 4, py - 8)) / 22) * 0.35;
      c = c.map((v, i) => mix(v, SHADOW[i], shadow));
      const fg = coverage(mark(px, py));
      c = c.map((v, i) => mix(v, MARK[i], fg));
      const o = (y * SIZE + x) * 4;
      rgba[o] = Math.round(c[0]);
      rgba[o + 1] = Math.round(c[1]);
      rgba[o + 2] = Math.round(c[2]);
      rgba[o + 3] = Math.round(bg * 255);
    }
  }
  return rgba;
}

// --- PNG ---------------------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function encodePng(rgba, width, height) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter
  ihdr[12] = 0; // no interlace
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter: none
    rgba.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'icon.png');
writeFileSync(out, encodePng(renderIcon(), SIZE, SIZE));
process.stdout.write(`wrote ${out} (${SIZE}x${SIZE})\n`);
