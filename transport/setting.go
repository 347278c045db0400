package transport

import (
	"fmt"
	"strconv"
)

// IntSetting is an integer setting of a transport, from the environment of
// a rank that a launcher started, listed in its Properties.Settings, e.g.
// shm's MPBENCH_SHM_CMA. The launcher reads and checks every setting
// (ReadSettings) before any transport is prepared, and hands the values to
// Prepare (ProcessConfig.Setting).
type IntSetting struct {
	// Env names the environment variable.
	Env string
	// Want says what it accepts, completing the error "NAME=\"value\":
	// want ...", e.g. "a socket buffer size in bytes > 0, or -1 for the
	// kernel default".
	Want string
	// Valid, if not nil, refuses a value that parses as an integer but is
	// out of range.
	Valid func(n int) bool
}

// Read returns the setting read through getenv, 0 when the variable is
// unset or empty (the transport's default). A value that is not a decimal
// integer, or that Valid refuses, is an error naming the variable, the
// value and what it accepts.
func (s IntSetting) Read(getenv func(string) string) (int, error) {
	v := getenv(s.Env)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || (s.Valid != nil && !s.Valid(n)) {
		return 0, fmt.Errorf("%s=%q: want %s", s.Env, v, s.Want)
	}
	return n, nil
}

// Check returns Read's error only.
func (s IntSetting) Check(getenv func(string) string) error {
	_, err := s.Read(getenv)
	return err
}

// ReadSettings reads, through getenv, the Settings of every registered
// transport mpbench's launcher can start ranks on (ProcessDrivers), by
// their variable's name (ProcessConfig.Settings); the error is the first
// bad one's.
func ReadSettings(getenv func(string) string) (map[string]int, error) {
	values := map[string]int{}
	for _, d := range ProcessDrivers() {
		for _, s := range d.Properties().Settings {
			n, err := s.Read(getenv)
			if err != nil {
				return nil, err
			}
			values[s.Env] = n
		}
	}
	return values, nil
}
