package cli

import (
	"github.com/spf13/pflag"

	"github.com/mpbench/mpbench/bench"
)

// switchFlag is the value of one of IMB's on/off options (-sync 1|0,
// -zero_size on|off, ...): parsed by bench.ParseSwitch when the option is
// set, so a bad value is a usage error of the command line's parse, in
// bench's wording. It keeps the text as given, which the workers' command
// line and the result files' metadata carry.
type switchFlag struct {
	name string
	text string
	on   *bool
}

// switchVar defines the IMB switch name on fs with the default def (e.g.
// "1", "off"), storing its value in *on. It returns the value, which
// another name of the option shares (fs.Var): both then show the text last
// given.
func switchVar(fs *pflag.FlagSet, on *bool, name, def, usage string) pflag.Value {
	s := &switchFlag{name: name, on: on}
	if err := s.Set(def); err != nil {
		panic(err) // a default that is no switch value: a programmer error
	}
	fs.Var(s, name, usage)
	return s
}

// String returns the value as given.
func (s *switchFlag) String() string { return s.text }

// Set parses v (bench.ParseSwitch); a bad value is a *bench.OptionError.
func (s *switchFlag) Set(v string) error {
	on, err := bench.ParseSwitch(s.name, v)
	if err != nil {
		return err
	}
	s.text, *s.on = v, on
	return nil
}

// Type names the kind of value in help texts.
func (s *switchFlag) Type() string { return "switch" }
