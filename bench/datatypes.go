package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/comm"
)

// dataTypes are IMB's -data_type names with the MPI datatype, its size in
// bytes and comm's Datatype for a runtime that runs timed loops itself
// (comm.Loop.Datatype; 0 is MPI_BYTE), in the order the errors list them.
var dataTypes = []struct {
	name, mpi string
	size      int
	t         comm.Datatype
}{{"byte", "MPI_BYTE", 1, 0}, {"char", "MPI_CHAR", 1, comm.Char}, {"int", "MPI_INT", 4, comm.Int32}, {"float", "MPI_FLOAT", 4, comm.Float32}, {"double", "MPI_DOUBLE", 8, comm.Float64}}

// redDataTypes are IMB's -red_data_type names mpbench's reductions offer,
// with the MPI datatype's name, in the order the errors list them.
var redDataTypes = []struct {
	name, mpi string
	t         coll.Datatype
}{{"float", "MPI_FLOAT", coll.Float32}, {"double", "MPI_DOUBLE", coll.Float64}, {"int", "MPI_INT", coll.Int32}, {"char", "MPI_CHAR", coll.Char}}

// imbOnlyTypes are IMB's datatype names mpbench does not offer for
// -data_type or -red_data_type: IMB offers the 16-bit floats only on
// libraries that define the MPIX types.
var imbOnlyTypes = []string{"char", "float16", "bfloat16"}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// dataTypeNames and redDataTypeNames are the accepted names, for errors.
func dataTypeNames() string {
	var n []string
	for _, t := range dataTypes {
		n = append(n, t.name)
	}
	return orList(n)
}

func redDataTypeNames() string {
	var n []string
	for _, t := range redDataTypes {
		n = append(n, t.name)
	}
	return orList(n)
}

// ParseDataType parses IMB's -data_type (byte, char, int, float or double,
// any case) into Options.DataType and Options.DataTypeSize: the MPI
// datatype's name and its size in bytes. The error names the option and
// the accepted names.
func ParseDataType(s string) (mpiName string, size int, err error) {
	dt := strings.ToLower(s)
	for _, t := range dataTypes {
		if t.name == dt {
			return t.mpi, t.size, nil
		}
	}
	if dt == "float16" || dt == "bfloat16" {
		return "", 0, optionErrorf("-data_type %s: mpbench has no %s (IMB offers it only on libraries defining the MPIX type); expected %s", s, dt, dataTypeNames())
	}
	return "", 0, optionErrorf("-data_type %s: expected %s", s, dataTypeNames())
}

// ParseRedDataType parses IMB's -red_data_type (float, double, int or
// char, any case) into Options.RedType. The error names the option and the accepted
// names.
func ParseRedDataType(s string) (coll.Datatype, error) {
	rt := strings.ToLower(s)
	for _, t := range redDataTypes {
		if t.name == rt {
			return t.t, nil
		}
	}
	for _, name := range imbOnlyTypes {
		if name == rt {
			return 0, optionErrorf("-red_data_type %s: mpbench's reductions have no %s elements; expected %s", s, rt, redDataTypeNames())
		}
	}
	return 0, optionErrorf("-red_data_type %s: expected %s", s, redDataTypeNames())
}

// ParseMap parses IMB's -map PxQ ("4x2", any case) for a job of np
// processes into Options.Map. The error names the option and what it
// accepts: integers P, Q >= 1 with P x Q <= np.
func ParseMap(s string, np int) ([2]int, error) {
	p, q, ok := strings.Cut(strings.ToLower(s), "x")
	pi, err1 := strconv.Atoi(p)
	qi, err2 := strconv.Atoi(q)
	if !ok || err1 != nil || err2 != nil || pi < 1 || qi < 1 {
		return [2]int{}, optionErrorf("-map %s: expected -map PxQ with integers P, Q >= 1, e.g. -map 4x2", s)
	}
	if pi*qi > np {
		return [2]int{}, optionErrorf("-map %s: P x Q = %d is more than the %d processes running; expected P x Q <= -np", s, pi*qi, np)
	}
	return [2]int{pi, qi}, nil
}

// DataTypeName is the MPI name of o's -data_type, for output headers:
// DataType, or "MPI_BYTE" when it is empty.
func (o *Options) DataTypeName() string {
	if o.DataType == "" {
		return "MPI_BYTE"
	}
	return o.DataType
}

// dataType is comm's Datatype of o's -data_type, for the loops of a
// runtime that runs them itself: 0 (MPI_BYTE) by default.
func (o *Options) dataType() comm.Datatype {
	for _, t := range dataTypes {
		if t.mpi == o.DataType {
			return t.t
		}
	}
	return 0
}

// dataTypeMPIName is the MPI name of -data_type's Datatype t.
func dataTypeMPIName(t comm.Datatype) string {
	for _, d := range dataTypes {
		if d.t == t {
			return d.mpi
		}
	}
	return t.String()
}

// RedDataTypeName is the MPI name of o's -red_data_type, for output
// headers ("MPI_FLOAT" by default).
func (o *Options) RedDataTypeName() string {
	rt := o.redType()
	for _, t := range redDataTypes {
		if t.t == rt {
			return t.mpi
		}
	}
	return "MPI_FLOAT"
}

// MapText describes -map for the output header of a job of np processes:
// "2x2 (world ranks in group order: 0 2 1 3)", or "" without -map.
func (o *Options) MapText(np int) string {
	if o.Map == [2]int{} {
		return ""
	}
	order := strings.Trim(fmt.Sprint(o.RankOrder(np)), "[]")
	return fmt.Sprintf("%dx%d (world ranks in group order: %s)", o.Map[0], o.Map[1], order)
}
