package bench

import (
	"testing"

	"github.com/mpbench/mpbench/coll"
)

// TestParseDataTypes: IMB's names in any case give the MPI datatype; every
// refusal is one line naming the option and the accepted names.
func TestParseDataTypes(t *testing.T) {
	for in, want := range map[string]struct {
		mpi  string
		size int
	}{"byte": {"MPI_BYTE", 1}, "CHAR": {"MPI_CHAR", 1}, "int": {"MPI_INT", 4}, "Float": {"MPI_FLOAT", 4}, "double": {"MPI_DOUBLE", 8}} {
		if mpi, size, err := ParseDataType(in); err != nil || mpi != want.mpi || size != want.size {
			t.Errorf("ParseDataType(%q) = %s, %d, %v; want %s, %d", in, mpi, size, err, want.mpi, want.size)
		}
	}
	for in, want := range map[string]string{
		"long":    "-data_type long: expected byte, char, int, float or double",
		"float16": "-data_type float16: mpbench has no float16 (IMB offers it only on libraries defining the MPIX type); expected byte, char, int, float or double",
	} {
		if _, _, err := ParseDataType(in); err == nil || err.Error() != want {
			t.Errorf("ParseDataType(%q): %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]coll.Datatype{"float": coll.Float32, "DOUBLE": coll.Float64, "int": coll.Int32} {
		if got, err := ParseRedDataType(in); err != nil || got != want {
			t.Errorf("ParseRedDataType(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseRedDataType("bfloat16"); err == nil || err.Error() != "-red_data_type bfloat16: mpbench's reductions have no bfloat16 elements; expected "+redDataTypeNames() {
		t.Errorf("ParseRedDataType(bfloat16): %v", err)
	}
	if _, err := ParseRedDataType("long"); err == nil || err.Error() != "-red_data_type long: expected "+redDataTypeNames() {
		t.Errorf("ParseRedDataType(long): %v", err)
	}
	for _, rt := range redDataTypes {
		o := Options{RedType: rt.t}
		if got := o.RedDataTypeName(); got != rt.mpi {
			t.Errorf("RedDataTypeName of %s: %s, want %s", rt.name, got, rt.mpi)
		}
	}
	if o := (Options{}); o.RedDataTypeName() != "MPI_FLOAT" || o.DataTypeName() != "MPI_BYTE" {
		t.Errorf("defaults: %s, %s; want MPI_FLOAT, MPI_BYTE", o.RedDataTypeName(), o.DataTypeName())
	}
}

// TestParseMap: -map PxQ within -np, and its refusals.
func TestParseMap(t *testing.T) {
	if m, err := ParseMap("4X2", 8); err != nil || m != [2]int{4, 2} {
		t.Errorf("ParseMap(4X2, 8) = %v, %v", m, err)
	}
	for _, c := range []struct {
		in   string
		np   int
		want string
	}{
		{"2x2", 2, "-map 2x2: P x Q = 4 is more than the 2 processes running; expected P x Q <= -np"},
		{"2by2", 4, "-map 2by2: expected -map PxQ with integers P, Q >= 1, e.g. -map 4x2"},
		{"0x2", 4, "-map 0x2: expected -map PxQ with integers P, Q >= 1, e.g. -map 4x2"},
	} {
		if _, err := ParseMap(c.in, c.np); err == nil || err.Error() != c.want {
			t.Errorf("ParseMap(%q, %d): %v, want %q", c.in, c.np, err, c.want)
		}
	}
	o := Options{Map: [2]int{2, 2}}
	if got, want := o.MapText(4), "2x2 (world ranks in group order: 0 2 1 3)"; got != want {
		t.Errorf("MapText: %q, want %q", got, want)
	}
}
