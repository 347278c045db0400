module github.com/mpbench/mpbench

go 1.26.8
