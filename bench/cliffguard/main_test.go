package main

import "testing"

func TestParseSizes(t *testing.T) {
	if got, err := parseSizes("8192, 16384"); err != nil || len(got) != 2 || got[1] != 16384 {
		t.Errorf("parseSizes: %v, %v", got, err)
	}
	for _, bad := range []string{"8192", "8k,16k", "0,8"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
}
