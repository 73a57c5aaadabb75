// SPDX-License-Identifier: GPL-2.0
// The node workload: objects, strings and Maps with churn, JSON, and
// Buffers outside V8's heap, in rounds; V8's scavenger and mark-compact
// move and free its pages, its JIT writes code.  One warm-up round runs
// first; then the program says "ready" and waits for a line on its
// standard input, so that the traced window can start after node's own
// start-up (guest-run.sh).
'use strict';
let seed = 26;
const n = Number(process.argv[2]);

function rnd() {
	seed = (seed * 1103515245 + 12345) % 2147483648;
	return seed;
}

function round(r) {
	const m = new Map();
	for (let i = 0; i < n; i++) {
		const k = rnd() % (n / 2);
		m.set(k, { k, s: 'x'.repeat(k % 64) + i, a: [i, k, r] });
	}
	const text = JSON.stringify([...m.values()]);
	let total = JSON.parse(text).length;
	const bufs = [];
	for (let i = 0; i < 16; i++)
		bufs.push(Buffer.alloc(64 * 1024 * (1 + (i % 8))));
	total += bufs.reduce((s, b) => s + b.length, 0) % 7;
	return total;
}

let total = round(0);
console.log('ready');
process.stdin.once('data', () => {
	for (let r = 1; r <= 5; r++)
		total += round(r);
	console.log('done ' + total);
	process.exit(0);
});
