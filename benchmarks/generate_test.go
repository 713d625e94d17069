package benchmarks

import "testing"

// BenchmarkGenerate makes IDs on one goroutine.
func BenchmarkGenerate(b *testing.B) {
	for _, g := range generators {
		b.Run(g.name, func(b *testing.B) {
			next, _ := g.start()
			b.ReportAllocs()
			for b.Loop() {
				next()
			}
		})
	}
}

// BenchmarkGenerateParallel makes IDs on GOMAXPROCS goroutines sharing each
// library's default generator, which is where locks and shared buffers show.
func BenchmarkGenerateParallel(b *testing.B) {
	for _, g := range generators {
		b.Run(g.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				next, _ := g.start()
				for pb.Next() {
					next()
				}
			})
		})
	}
}
