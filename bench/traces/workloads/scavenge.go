// SPDX-License-Identifier: GPL-2.0
// The Go workload: four goroutines grow a heap of byte slices to about
// 200 MB and drop it, three times; between rounds the program idles so
// that the runtime's background scavenger returns the freed memory to
// the kernel (madvise), and at the end debug.FreeOSMemory() returns the
// rest.
package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

func main() {
	var sum int
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		parts := make([][][]byte, 4)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < 800; i++ {
					b := make([]byte, 16<<10+(i%16)<<12)
					b[0] = byte(i)
					parts[g] = append(parts[g], b)
				}
			}(g)
		}
		wg.Wait()
		for _, p := range parts {
			sum += len(p)
		}
		parts = nil
		runtime.GC()
		time.Sleep(3 * time.Second)
	}
	debug.FreeOSMemory()
	fmt.Println(sum)
}
