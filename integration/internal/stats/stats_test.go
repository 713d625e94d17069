package stats

import "testing"

func TestOf(t *testing.T) {
	cases := []struct {
		in   []float64
		want Summary
	}{
		{nil, Summary{}},
		{[]float64{3}, Summary{3, 3, 3, 1}},
		{[]float64{5, 1, 3}, Summary{3, 1, 5, 3}},
		{[]float64{4, 1, 3, 2}, Summary{2.5, 1, 4, 4}},
	}
	for _, c := range cases {
		if got := Of(c.in); got != c.want {
			t.Errorf("Of(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestRatio(t *testing.T) {
	if got := Ratio(1, 4); got != "0.25" {
		t.Errorf("Ratio(1, 4) = %s", got)
	}
	if got := Ratio(1, 0); got != "n/a" {
		t.Errorf("Ratio(1, 0) = %s", got)
	}
}
