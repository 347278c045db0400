package transport

import "testing"

// TestIntSetting: unset or empty is 0, a decimal integer is read, and a
// value that does not parse or is out of range is an error naming the
// variable, the value and what it accepts.
func TestIntSetting(t *testing.T) {
	s := IntSetting{Env: "MPBENCH_X", Want: "bytes > 0, or -1", Valid: func(n int) bool { return n > 0 || n == -1 }}
	for v, want := range map[string]int{"": 0, "4096": 4096, "-1": -1} {
		getenv := func(name string) string {
			if name != "MPBENCH_X" {
				t.Errorf("read %s, want MPBENCH_X", name)
			}
			return v
		}
		if n, err := s.Read(getenv); n != want || err != nil {
			t.Errorf("MPBENCH_X=%q: %d, %v; want %d", v, n, err, want)
		}
		if err := s.Check(getenv); err != nil {
			t.Errorf("Check(MPBENCH_X=%q): %v", v, err)
		}
	}
	for _, v := range []string{"16k", "0", "-2", " 5"} {
		getenv := func(string) string { return v }
		want := `MPBENCH_X="` + v + `": want bytes > 0, or -1`
		if n, err := s.Read(getenv); n != 0 || err == nil || err.Error() != want {
			t.Errorf("MPBENCH_X=%q: %d, %v; want the error %q", v, n, err, want)
		}
		if err := s.Check(getenv); err == nil || err.Error() != want {
			t.Errorf("Check(MPBENCH_X=%q): %v, want %q", v, err, want)
		}
	}
	if n, err := (IntSetting{Env: "MPBENCH_Y", Want: "bytes"}).Read(func(string) string { return "-7" }); n != -7 || err != nil {
		t.Errorf("without Valid, -7: %d, %v", n, err)
	}
}

// TestReadSettings: the settings of every launchable transport are read
// and checked, the first bad one is the error, and a transport the
// launcher does not start is not asked.
func TestReadSettings(t *testing.T) {
	reset(t)
	positive := func(n int) bool { return n > 0 }
	Register(fakeProcessDriver{fakeDriver{Properties{Name: "a", Reach: SameHost, Settings: []IntSetting{{Env: "MPBENCH_A", Want: "bytes > 0", Valid: positive}}}}})
	Register(fakeProcessDriver{fakeDriver{Properties{Name: "b", Reach: AnyHost, Settings: []IntSetting{{Env: "MPBENCH_B", Want: "a count"}}}}})
	Register(fakeDriver{Properties{Name: "c", Reach: SameProcess, Settings: []IntSetting{{Env: "MPBENCH_C", Want: "never read"}}}})
	env := map[string]string{"MPBENCH_A": "4096", "MPBENCH_B": "", "MPBENCH_C": "x"}
	getenv := func(name string) string { return env[name] }
	if got, err := ReadSettings(getenv); err != nil || len(got) != 2 || got["MPBENCH_A"] != 4096 || got["MPBENCH_B"] != 0 {
		t.Errorf("good settings: %v, %v; want MPBENCH_A 4096 and MPBENCH_B 0 only", got, err)
	}
	cfg := ProcessConfig{Settings: map[string]int{"MPBENCH_A": 4096}}
	if a, b := cfg.Setting(IntSetting{Env: "MPBENCH_A"}), cfg.Setting(IntSetting{Env: "MPBENCH_B"}); a != 4096 || b != 0 {
		t.Errorf("ProcessConfig.Setting: %d and %d, want 4096 and 0 (unset)", a, b)
	}
	env["MPBENCH_B"] = "many"
	if _, err := ReadSettings(getenv); err == nil || err.Error() != `MPBENCH_B="many": want a count` {
		t.Errorf("a bad MPBENCH_B: %v", err)
	}
	env["MPBENCH_A"] = "0"
	if _, err := ReadSettings(getenv); err == nil || err.Error() != `MPBENCH_A="0": want bytes > 0` {
		t.Errorf("bad MPBENCH_A and MPBENCH_B: %v, want MPBENCH_A's error (its transport comes first)", err)
	}
}
