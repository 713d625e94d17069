package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sortid/sortid/idtype"
)

const oddsHelp = `Usage: sortid odds --rate R --generators G

Estimate, by the birthday bound of HUID spec §6.2, how many ID collisions to
expect when R IDs a second are made by G independent generators, per
millisecond, day and year, for HUID and, for contrast, SCRU128. The model and
its assumptions are printed with the numbers.

A generator is anything that draws IDs without knowing the others' state:
a process using idtype's default generator, or a PostgreSQL server (one sortid
install) whose sessions call huid_generate(); in a read-only transaction or on
a hot standby, each database session is one. One generator never repeats its
own IDs, so G = 1 gives 0.
`

const oddsModel = `
Model: G generators each make n = R/1000/G IDs a millisecond. Within one
generator IDs never repeat; two generators share a millisecond's space of 2^b
values (HUID: b = 21 random bits; SCRU128: b = 84 bits of counter,
per_sec_random and per_gen_random), so each pair expects n²/2^b collisions a
millisecond and all pairs G(G-1)/2 · n²/2^b. A day is 86 400 000 ms, a year
365.25 days.

Assumptions:
  - the rate is spread evenly over time and over the generators;
  - each generator never repeats its own IDs (true for idtype's generators,
    and for huid_generate() on one server unless its clock steps back over
    2^21 of its keys);
  - every process, every server (and every read-only database session)
    running huid_generate(), and every database session running
    scru128_generate(), is a separate generator;
  - the random bits of different generators are independent and uniform;
  - a collision is a pair of equal IDs; an expected count far below 1 is
    also about the probability of any collision at all.
`

func runOdds(args []string, s streams) error {
	fs := newFlagSet("odds")
	rateText := fs.String("rate", "", "IDs made per second, over all generators (required, at least 0)")
	generators := fs.Int("generators", 0, "independent generators sharing the rate (required, at least 1)")
	positional, err := parseArgs(fs, args, oddsHelp)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("unexpected arguments %s", quoteInputs(positional))
	}
	rate, err := parseRate(*rateText)
	if err != nil {
		return err
	}
	if !flagGiven(fs, "generators") {
		return usagef("--generators is required")
	}
	if *generators < 1 {
		return usagef("--generators %d: want at least 1", *generators)
	}

	huid, err := idtype.HUIDCollisions(rate, *generators)
	if err != nil {
		return &usageError{err}
	}
	scru128, err := idtype.SCRU128Collisions(rate, *generators)
	if err != nil {
		return &usageError{err}
	}
	return writeAll(s.stdout, formatOdds(huid, scru128))
}

// parseRate parses --rate: a finite decimal number of at least 0, such as
// 5000, 2.5 or 1e6.
func parseRate(text string) (float64, error) {
	if text == "" {
		return 0, usagef("--rate is required")
	}
	rate, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		return 0, usagef("--rate %s: want a finite number of IDs per second, at least 0", quoteInput(text))
	}
	return rate, nil
}

// flagGiven reports whether the flag name was given on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// formatOdds renders the two estimates as a table followed by the model.
func formatOdds(huid, scru128 idtype.CollisionEstimate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Birthday-bound collision estimate (HUID spec §6.2)\n")
	generators := "generators"
	if huid.Generators == 1 {
		generators = "generator"
	}
	fmt.Fprintf(&b, "rate %s IDs/s over %d %s: %s IDs/ms per generator\n\n",
		strconv.FormatFloat(huid.IDsPerSecond, 'f', -1, 64), huid.Generators, generators,
		strconv.FormatFloat(huid.IDsPerMillisecondEach, 'f', -1, 64))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scheme\tIDs/ms/generator\tcollisions/ms\tcollisions/day\tcollisions/year")
	for _, row := range []struct {
		scheme string
		est    idtype.CollisionEstimate
	}{{"HUID", huid}, {"SCRU128", scru128}} {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.scheme, formatNumber(row.est.IDsPerMillisecondEach),
			formatNumber(row.est.PerMillisecond), formatNumber(row.est.PerDay), formatNumber(row.est.PerYear))
	}
	tw.Flush() // writes to a strings.Builder, which cannot fail
	b.WriteString(oddsModel)
	return b.String()
}

// formatNumber formats v with three significant digits.
func formatNumber(v float64) string { return fmt.Sprintf("%.3g", v) }
