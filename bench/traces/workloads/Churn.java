// SPDX-License-Identifier: GPL-2.0
// The Java workload: a bounded LRU cache of byte arrays and strings with
// churn, in phases whose live set grows and shrinks, System.gc() after
// each (the collector may then shrink the heap and uncommit memory).
// A warm-up phase of 8 times the operations runs first (the JIT settles); then the program says "ready" and waits
// for a line on its standard input, so that the traced window can start
// after the JVM's own start-up (guest-run.sh).
import java.util.LinkedHashMap;
import java.util.Map;

public class Churn {
	static final class Lru extends LinkedHashMap<Integer, Object> {
		final int cap;

		Lru(int cap) {
			super(16, 0.75f, true);
			this.cap = cap;
		}

		@Override
		protected boolean removeEldestEntry(Map.Entry<Integer, Object> e) {
			return size() > cap;
		}
	}

	static long seed = 26;

	static long phase(int cap, int ops) {
		Lru cache = new Lru(cap);
		long sum = 0;

		for (int i = 0; i < ops; i++) {
			seed = seed * 6364136223846793005L + 1442695040888963407L;
			int key = (int) ((seed >>> 33) % (cap * 2));
			Object v = cache.get(key);

			if (v == null) {
				v = (i & 1) == 0 ? new byte[256 + (key & 1023)] : ("v" + key + ":" + i);
				cache.put(key, v);
			}
			sum += v.hashCode() & 7;
		}
		return sum;
	}

	public static void main(String[] args) throws java.io.IOException {
		int[] caps = { 16000, 1000, 24000 };
		int ops = Integer.parseInt(args[0]);
		long sum = phase(1000, 8 * ops);

		System.gc();
		System.out.println("ready");
		System.out.flush();
		if (System.in.read() < 0)
			return;
		for (int cap : caps) {
			sum += phase(cap, ops);
			System.gc();
		}
		System.out.println("done " + sum);
		System.out.flush();
	}
}
