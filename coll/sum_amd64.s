#include "textflag.h"

// Element-wise sums of 128-byte blocks with AVX2 (see sum_amd64.go): each
// iteration loads four 32-byte vectors of a, adds the four of b and
// stores them to d. Unaligned loads and stores; d may equal a, since each
// block is read whole before it is written. MOV and ADD are the
// instructions of the element type: VMOVUPS and VADDPS for float32,
// VMOVUPD and VADDPD for float64.
#define SUM_BLOCKS(MOV, ADD) \
	MOVQ	d+0(FP), DI \
	MOVQ	a+8(FP), SI \
	MOVQ	b+16(FP), DX \
	MOVQ	blocks+24(FP), CX \
loop: \
	MOV	(SI), Y0 \
	MOV	32(SI), Y1 \
	MOV	64(SI), Y2 \
	MOV	96(SI), Y3 \
	ADD	(DX), Y0, Y0 \
	ADD	32(DX), Y1, Y1 \
	ADD	64(DX), Y2, Y2 \
	ADD	96(DX), Y3, Y3 \
	MOV	Y0, (DI) \
	MOV	Y1, 32(DI) \
	MOV	Y2, 64(DI) \
	MOV	Y3, 96(DI) \
	ADDQ	$128, SI \
	ADDQ	$128, DX \
	ADDQ	$128, DI \
	DECQ	CX \
	JNZ	loop \
	VZEROUPPER \
	RET

// func addFloat32Blocks(d, a, b *byte, blocks int)
TEXT ·addFloat32Blocks(SB), NOSPLIT, $0-32
	SUM_BLOCKS(VMOVUPS, VADDPS)

// func addFloat64Blocks(d, a, b *byte, blocks int)
TEXT ·addFloat64Blocks(SB), NOSPLIT, $0-32
	SUM_BLOCKS(VMOVUPD, VADDPD)
