package benchmarks

import (
	"testing"

	"github.com/sortid/sortid/idtype"
)

// TestGeneratorsMakeValidIDs checks that every contender's IDs parse back
// with its own parser and are not all the same, so the benchmarks compare
// working generators.
func TestGeneratorsMakeValidIDs(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			next, last := g.start()
			seen := map[string]bool{}
			for range 100 {
				next()
				s := last()
				if err := g.parse(s); err != nil {
					t.Fatalf("%s made %q, which does not parse back: %v", g.name, s, err)
				}
				seen[s] = true
			}
			if len(seen) < 90 {
				t.Fatalf("%s made only %d distinct IDs of 100", g.name, len(seen))
			}
		})
	}
}

// TestCodecsSucceed runs every parse, format, Scan and Value contender once
// and checks the results round-trip, so no benchmark measures an error path.
func TestCodecsSucceed(t *testing.T) {
	groups := map[string][]codec{
		"parse": parseCodecs(), "string": stringCodecs(), "append": appendCodecs(),
		"scan": scanCodecs(), "value": valueCodecs(),
	}
	for group, codecs := range groups {
		for _, c := range codecs {
			if err := c.run(); err != nil {
				t.Errorf("%s/%s: %v", group, c.name, err)
			}
		}
	}
	s := onceIDs()
	if h, err := idtype.ParseHUID(s.huid.String()); err != nil || h != s.huid {
		t.Errorf("HUID %d: decimal round trip gave %d, %v", s.huid, h, err)
	}
	for _, text := range []string{s.scru.String(), s.scru.UUIDString()} {
		if id, err := idtype.ParseSCRU128(text); err != nil || id != s.scru {
			t.Errorf("SCRU128 %s: round trip of %q gave %s, %v", s.scru, text, id, err)
		}
	}
}
