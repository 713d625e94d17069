//go:build race

package idtype

func init() { raceEnabled = true }
