"""Large and deep shapes: long elif chains, long boolean chains, deep nesting.

A recursive decompiler may hit the recursion limit here; it must raise DecompilationError
at worst (a RecursionError is a failure), and never produce wrong code.
"""

from . import cases

CONSTRUCT = "control"


@cases(*[(i,) for i in range(-1, 152)])
def stress_elif_chain_150(n):
    if n == 0:
        return "v0"
    elif n == 1:
        return "v1"
    elif n == 2:
        return "v2"
    elif n == 3:
        return "v3"
    elif n == 4:
        return "v4"
    elif n == 5:
        return "v5"
    elif n == 6:
        return "v6"
    elif n == 7:
        return "v7"
    elif n == 8:
        return "v8"
    elif n == 9:
        return "v9"
    elif n == 10:
        return "v10"
    elif n == 11:
        return "v11"
    elif n == 12:
        return "v12"
    elif n == 13:
        return "v13"
    elif n == 14:
        return "v14"
    elif n == 15:
        return "v15"
    elif n == 16:
        return "v16"
    elif n == 17:
        return "v17"
    elif n == 18:
        return "v18"
    elif n == 19:
        return "v19"
    elif n == 20:
        return "v20"
    elif n == 21:
        return "v21"
    elif n == 22:
        return "v22"
    elif n == 23:
        return "v23"
    elif n == 24:
        return "v24"
    elif n == 25:
        return "v25"
    elif n == 26:
        return "v26"
    elif n == 27:
        return "v27"
    elif n == 28:
        return "v28"
    elif n == 29:
        return "v29"
    elif n == 30:
        return "v30"
    elif n == 31:
        return "v31"
    elif n == 32:
        return "v32"
    elif n == 33:
        return "v33"
    elif n == 34:
        return "v34"
    elif n == 35:
        return "v35"
    elif n == 36:
        return "v36"
    elif n == 37:
        return "v37"
    elif n == 38:
        return "v38"
    elif n == 39:
        return "v39"
    elif n == 40:
        return "v40"
    elif n == 41:
        return "v41"
    elif n == 42:
        return "v42"
    elif n == 43:
        return "v43"
    elif n == 44:
        return "v44"
    elif n == 45:
        return "v45"
    elif n == 46:
        return "v46"
    elif n == 47:
        return "v47"
    elif n == 48:
        return "v48"
    elif n == 49:
        return "v49"
    elif n == 50:
        return "v50"
    elif n == 51:
        return "v51"
    elif n == 52:
        return "v52"
    elif n == 53:
        return "v53"
    elif n == 54:
        return "v54"
    elif n == 55:
        return "v55"
    elif n == 56:
        return "v56"
    elif n == 57:
        return "v57"
    elif n == 58:
        return "v58"
    elif n == 59:
        return "v59"
    elif n == 60:
        return "v60"
    elif n == 61:
        return "v61"
    elif n == 62:
        return "v62"
    elif n == 63:
        return "v63"
    elif n == 64:
        return "v64"
    elif n == 65:
        return "v65"
    elif n == 66:
        return "v66"
    elif n == 67:
        return "v67"
    elif n == 68:
        return "v68"
    elif n == 69:
        return "v69"
    elif n == 70:
        return "v70"
    elif n == 71:
        return "v71"
    elif n == 72:
        return "v72"
    elif n == 73:
        return "v73"
    elif n == 74:
        return "v74"
    elif n == 75:
        return "v75"
    elif n == 76:
        return "v76"
    elif n == 77:
        return "v77"
    elif n == 78:
        return "v78"
    elif n == 79:
        return "v79"
    elif n == 80:
        return "v80"
    elif n == 81:
        return "v81"
    elif n == 82:
        return "v82"
    elif n == 83:
        return "v83"
    elif n == 84:
        return "v84"
    elif n == 85:
        return "v85"
    elif n == 86:
        return "v86"
    elif n == 87:
        return "v87"
    elif n == 88:
        return "v88"
    elif n == 89:
        return "v89"
    elif n == 90:
        return "v90"
    elif n == 91:
        return "v91"
    elif n == 92:
        return "v92"
    elif n == 93:
        return "v93"
    elif n == 94:
        return "v94"
    elif n == 95:
        return "v95"
    elif n == 96:
        return "v96"
    elif n == 97:
        return "v97"
    elif n == 98:
        return "v98"
    elif n == 99:
        return "v99"
    elif n == 100:
        return "v100"
    elif n == 101:
        return "v101"
    elif n == 102:
        return "v102"
    elif n == 103:
        return "v103"
    elif n == 104:
        return "v104"
    elif n == 105:
        return "v105"
    elif n == 106:
        return "v106"
    elif n == 107:
        return "v107"
    elif n == 108:
        return "v108"
    elif n == 109:
        return "v109"
    elif n == 110:
        return "v110"
    elif n == 111:
        return "v111"
    elif n == 112:
        return "v112"
    elif n == 113:
        return "v113"
    elif n == 114:
        return "v114"
    elif n == 115:
        return "v115"
    elif n == 116:
        return "v116"
    elif n == 117:
        return "v117"
    elif n == 118:
        return "v118"
    elif n == 119:
        return "v119"
    elif n == 120:
        return "v120"
    elif n == 121:
        return "v121"
    elif n == 122:
        return "v122"
    elif n == 123:
        return "v123"
    elif n == 124:
        return "v124"
    elif n == 125:
        return "v125"
    elif n == 126:
        return "v126"
    elif n == 127:
        return "v127"
    elif n == 128:
        return "v128"
    elif n == 129:
        return "v129"
    elif n == 130:
        return "v130"
    elif n == 131:
        return "v131"
    elif n == 132:
        return "v132"
    elif n == 133:
        return "v133"
    elif n == 134:
        return "v134"
    elif n == 135:
        return "v135"
    elif n == 136:
        return "v136"
    elif n == 137:
        return "v137"
    elif n == 138:
        return "v138"
    elif n == 139:
        return "v139"
    elif n == 140:
        return "v140"
    elif n == 141:
        return "v141"
    elif n == 142:
        return "v142"
    elif n == 143:
        return "v143"
    elif n == 144:
        return "v144"
    elif n == 145:
        return "v145"
    elif n == 146:
        return "v146"
    elif n == 147:
        return "v147"
    elif n == 148:
        return "v148"
    elif n == 149:
        return "v149"
    else:
        return "other"


@cases((0,), (1,), (7,), (100,), (200,))
def stress_long_or_and_chain(x):
    r1 = (
        x == 0
        or x == 1
        or x == 2
        or x == 3
        or x == 4
        or x == 5
        or x == 6
        or x == 7
        or x == 8
        or x == 9
        or x == 10
        or x == 11
        or x == 12
        or x == 13
        or x == 14
        or x == 15
        or x == 16
        or x == 17
        or x == 18
        or x == 19
        or x == 20
        or x == 21
        or x == 22
        or x == 23
        or x == 24
        or x == 25
        or x == 26
        or x == 27
        or x == 28
        or x == 29
        or x == 30
        or x == 31
        or x == 32
        or x == 33
        or x == 34
        or x == 35
        or x == 36
        or x == 37
        or x == 38
        or x == 39
        or x == 40
        or x == 41
        or x == 42
        or x == 43
        or x == 44
        or x == 45
        or x == 46
        or x == 47
        or x == 48
        or x == 49
        or x == 50
        or x == 51
        or x == 52
        or x == 53
        or x == 54
        or x == 55
        or x == 56
        or x == 57
        or x == 58
        or x == 59
        or x == 60
        or x == 61
        or x == 62
        or x == 63
        or x == 64
        or x == 65
        or x == 66
        or x == 67
        or x == 68
        or x == 69
        or x == 70
        or x == 71
        or x == 72
        or x == 73
        or x == 74
        or x == 75
        or x == 76
        or x == 77
        or x == 78
        or x == 79
        or x == 80
        or x == 81
        or x == 82
        or x == 83
        or x == 84
        or x == 85
        or x == 86
        or x == 87
        or x == 88
        or x == 89
        or x == 90
        or x == 91
        or x == 92
        or x == 93
        or x == 94
        or x == 95
        or x == 96
        or x == 97
        or x == 98
        or x == 99
        or x == 100
        or x == 101
        or x == 102
        or x == 103
        or x == 104
        or x == 105
        or x == 106
        or x == 107
        or x == 108
        or x == 109
        or x == 110
        or x == 111
        or x == 112
        or x == 113
        or x == 114
        or x == 115
        or x == 116
        or x == 117
        or x == 118
        or x == 119
    )
    r2 = (
        x != 2
        and x != 3
        and x != 4
        and x != 5
        and x != 6
        and x != 7
        and x != 8
        and x != 9
        and x != 10
        and x != 11
        and x != 12
        and x != 13
        and x != 14
        and x != 15
        and x != 16
        and x != 17
        and x != 18
        and x != 19
        and x != 20
        and x != 21
        and x != 22
        and x != 23
        and x != 24
        and x != 25
        and x != 26
        and x != 27
        and x != 28
        and x != 29
        and x != 30
        and x != 31
        and x != 32
        and x != 33
        and x != 34
        and x != 35
        and x != 36
        and x != 37
        and x != 38
        and x != 39
        and x != 40
        and x != 41
        and x != 42
        and x != 43
        and x != 44
        and x != 45
        and x != 46
        and x != 47
        and x != 48
        and x != 49
        and x != 50
        and x != 51
        and x != 52
        and x != 53
        and x != 54
        and x != 55
        and x != 56
        and x != 57
        and x != 58
        and x != 59
        and x != 60
        and x != 61
        and x != 62
        and x != 63
        and x != 64
        and x != 65
        and x != 66
        and x != 67
        and x != 68
        and x != 69
        and x != 70
        and x != 71
        and x != 72
        and x != 73
        and x != 74
        and x != 75
        and x != 76
        and x != 77
        and x != 78
        and x != 79
        and x != 80
        and x != 81
        and x != 82
        and x != 83
        and x != 84
        and x != 85
        and x != 86
        and x != 87
        and x != 88
        and x != 89
        and x != 90
        and x != 91
        and x != 92
        and x != 93
        and x != 94
        and x != 95
        and x != 96
        and x != 97
        and x != 98
        and x != 99
        and x != 100
        and x != 101
        and x != 102
        and x != 103
        and x != 104
        and x != 105
        and x != 106
        and x != 107
        and x != 108
        and x != 109
        and x != 110
        and x != 111
        and x != 112
        and x != 113
        and x != 114
        and x != 115
        and x != 116
        and x != 117
        and x != 118
        and x != 119
    )
    if (
        x == 0
        or x == 1
        or x == 2
        or x == 3
        or x == 4
        or x == 5
        or x == 6
        or x == 7
        or x == 8
        or x == 9
        or x == 10
        or x == 11
        or x == 12
        or x == 13
        or x == 14
        or x == 15
        or x == 16
        or x == 17
        or x == 18
        or x == 19
        or x == 20
        or x == 21
        or x == 22
        or x == 23
        or x == 24
        or x == 25
        or x == 26
        or x == 27
        or x == 28
        or x == 29
        or x == 30
        or x == 31
        or x == 32
        or x == 33
        or x == 34
        or x == 35
        or x == 36
        or x == 37
        or x == 38
        or x == 39
        or x == 40
        or x == 41
        or x == 42
        or x == 43
        or x == 44
        or x == 45
        or x == 46
        or x == 47
        or x == 48
        or x == 49
        or x == 50
        or x == 51
        or x == 52
        or x == 53
        or x == 54
        or x == 55
        or x == 56
        or x == 57
        or x == 58
        or x == 59
        or x == 60
        or x == 61
        or x == 62
        or x == 63
        or x == 64
        or x == 65
        or x == 66
        or x == 67
        or x == 68
        or x == 69
        or x == 70
        or x == 71
        or x == 72
        or x == 73
        or x == 74
        or x == 75
        or x == 76
        or x == 77
        or x == 78
        or x == 79
        or x == 80
        or x == 81
        or x == 82
        or x == 83
        or x == 84
        or x == 85
        or x == 86
        or x == 87
        or x == 88
        or x == 89
        or x == 90
        or x == 91
        or x == 92
        or x == 93
        or x == 94
        or x == 95
        or x == 96
        or x == 97
        or x == 98
        or x == 99
        or x == 100
        or x == 101
        or x == 102
        or x == 103
        or x == 104
        or x == 105
        or x == 106
        or x == 107
        or x == 108
        or x == 109
        or x == 110
        or x == 111
        or x == 112
        or x == 113
        or x == 114
        or x == 115
        or x == 116
        or x == 117
        or x == 118
        or x == 119
    ):
        r3 = "hit"
    else:
        r3 = "miss"
    return r1, r2, r3


@cases((0,), (1,), (50,))
def stress_long_comparison_chain(x):
    return (
        x
        <= 0
        <= 1
        <= 2
        <= 3
        <= 4
        <= 5
        <= 6
        <= 7
        <= 8
        <= 9
        <= 10
        <= 11
        <= 12
        <= 13
        <= 14
        <= 15
        <= 16
        <= 17
        <= 18
        <= 19
        <= 20
        <= 21
        <= 22
        <= 23
        <= 24
        <= 25
        <= 26
        <= 27
        <= 28
        <= 29
        <= 30
        <= 31
        <= 32
        <= 33
        <= 34
        <= 35
        <= 36
        <= 37
        <= 38
        <= 39,
        0
        < 1
        < 2
        < 3
        < 4
        < 5
        < 6
        < 7
        < 8
        < 9
        < 10
        < 11
        < 12
        < 13
        < 14
        < 15
        < 16
        < 17
        < 18
        < 19
        < 20
        < 21
        < 22
        < 23
        < 24
        < 25
        < 26
        < 27
        < 28
        < 29
        < 30
        < 31
        < 32
        < 33
        < 34
        < 35
        < 36
        < 37
        < 38
        < 39
        < x,
    )


@cases((0,), (1,), (3,))
def stress_deep_nesting(n):
    out = []
    if n >= 0:
        if n >= 1:
            for i2 in range(n + 1):
                if n >= 0:
                    if n >= 1:
                        for i5 in range(n + 1):
                            if n >= 0:
                                if n >= 1:
                                    for i8 in range(n + 1):
                                        if n >= 0:
                                            if n >= 1:
                                                for i11 in range(n + 1):
                                                    out.append(n)
                                                    if len(out) > 5:
                                                        return out
    return out


@cases((1,), (2,))
def stress_many_statements(x):
    # fmt: off
    t = x
    if t % 2: t += 0  # noqa: E701
    t = (t * 2 + 1) % 1000003
    t = (t * 3 + 2) % 1000003
    t = (t * 4 + 3) % 1000003
    t = (t * 5 + 4) % 1000003
    t = (t * 6 + 5) % 1000003
    t = (t * 7 + 6) % 1000003
    if t % 4: t += 7  # noqa: E701
    t = (t * 9 + 8) % 1000003
    t = (t * 1 + 9) % 1000003
    t = (t * 2 + 10) % 1000003
    t = (t * 3 + 11) % 1000003
    t = (t * 4 + 12) % 1000003
    t = (t * 5 + 13) % 1000003
    if t % 6: t += 14  # noqa: E701
    t = (t * 7 + 15) % 1000003
    t = (t * 8 + 16) % 1000003
    t = (t * 9 + 17) % 1000003
    t = (t * 1 + 18) % 1000003
    t = (t * 2 + 19) % 1000003
    t = (t * 3 + 20) % 1000003
    if t % 3: t += 21  # noqa: E701
    t = (t * 5 + 22) % 1000003
    t = (t * 6 + 23) % 1000003
    t = (t * 7 + 24) % 1000003
    t = (t * 8 + 25) % 1000003
    t = (t * 9 + 26) % 1000003
    t = (t * 1 + 27) % 1000003
    if t % 5: t += 28  # noqa: E701
    t = (t * 3 + 29) % 1000003
    t = (t * 4 + 30) % 1000003
    t = (t * 5 + 31) % 1000003
    t = (t * 6 + 32) % 1000003
    t = (t * 7 + 33) % 1000003
    t = (t * 8 + 34) % 1000003
    if t % 2: t += 35  # noqa: E701
    t = (t * 1 + 36) % 1000003
    t = (t * 2 + 37) % 1000003
    t = (t * 3 + 38) % 1000003
    t = (t * 4 + 39) % 1000003
    t = (t * 5 + 40) % 1000003
    t = (t * 6 + 41) % 1000003
    if t % 4: t += 42  # noqa: E701
    t = (t * 8 + 43) % 1000003
    t = (t * 9 + 44) % 1000003
    t = (t * 1 + 45) % 1000003
    t = (t * 2 + 46) % 1000003
    t = (t * 3 + 47) % 1000003
    t = (t * 4 + 48) % 1000003
    if t % 6: t += 49  # noqa: E701
    t = (t * 6 + 50) % 1000003
    t = (t * 7 + 51) % 1000003
    t = (t * 8 + 52) % 1000003
    t = (t * 9 + 53) % 1000003
    t = (t * 1 + 54) % 1000003
    t = (t * 2 + 55) % 1000003
    if t % 3: t += 56  # noqa: E701
    t = (t * 4 + 57) % 1000003
    t = (t * 5 + 58) % 1000003
    t = (t * 6 + 59) % 1000003
    t = (t * 7 + 60) % 1000003
    t = (t * 8 + 61) % 1000003
    t = (t * 9 + 62) % 1000003
    if t % 5: t += 63  # noqa: E701
    t = (t * 2 + 64) % 1000003
    t = (t * 3 + 65) % 1000003
    t = (t * 4 + 66) % 1000003
    t = (t * 5 + 67) % 1000003
    t = (t * 6 + 68) % 1000003
    t = (t * 7 + 69) % 1000003
    if t % 2: t += 70  # noqa: E701
    t = (t * 9 + 71) % 1000003
    t = (t * 1 + 72) % 1000003
    t = (t * 2 + 73) % 1000003
    t = (t * 3 + 74) % 1000003
    t = (t * 4 + 75) % 1000003
    t = (t * 5 + 76) % 1000003
    if t % 4: t += 77  # noqa: E701
    t = (t * 7 + 78) % 1000003
    t = (t * 8 + 79) % 1000003
    t = (t * 9 + 80) % 1000003
    t = (t * 1 + 81) % 1000003
    t = (t * 2 + 82) % 1000003
    t = (t * 3 + 83) % 1000003
    if t % 6: t += 84  # noqa: E701
    t = (t * 5 + 85) % 1000003
    t = (t * 6 + 86) % 1000003
    t = (t * 7 + 87) % 1000003
    t = (t * 8 + 88) % 1000003
    t = (t * 9 + 89) % 1000003
    t = (t * 1 + 90) % 1000003
    if t % 3: t += 91  # noqa: E701
    t = (t * 3 + 92) % 1000003
    t = (t * 4 + 93) % 1000003
    t = (t * 5 + 94) % 1000003
    t = (t * 6 + 95) % 1000003
    t = (t * 7 + 96) % 1000003
    t = (t * 8 + 97) % 1000003
    if t % 5: t += 98  # noqa: E701
    t = (t * 1 + 99) % 1000003
    t = (t * 2 + 100) % 1000003
    t = (t * 3 + 101) % 1000003
    t = (t * 4 + 102) % 1000003
    t = (t * 5 + 103) % 1000003
    t = (t * 6 + 104) % 1000003
    if t % 2: t += 105  # noqa: E701
    t = (t * 8 + 106) % 1000003
    t = (t * 9 + 107) % 1000003
    t = (t * 1 + 108) % 1000003
    t = (t * 2 + 109) % 1000003
    t = (t * 3 + 110) % 1000003
    t = (t * 4 + 111) % 1000003
    if t % 4: t += 112  # noqa: E701
    t = (t * 6 + 113) % 1000003
    t = (t * 7 + 114) % 1000003
    t = (t * 8 + 115) % 1000003
    t = (t * 9 + 116) % 1000003
    t = (t * 1 + 117) % 1000003
    t = (t * 2 + 118) % 1000003
    if t % 6: t += 119  # noqa: E701
    t = (t * 4 + 120) % 1000003
    t = (t * 5 + 121) % 1000003
    t = (t * 6 + 122) % 1000003
    t = (t * 7 + 123) % 1000003
    t = (t * 8 + 124) % 1000003
    t = (t * 9 + 125) % 1000003
    if t % 3: t += 126  # noqa: E701
    t = (t * 2 + 127) % 1000003
    t = (t * 3 + 128) % 1000003
    t = (t * 4 + 129) % 1000003
    t = (t * 5 + 130) % 1000003
    t = (t * 6 + 131) % 1000003
    t = (t * 7 + 132) % 1000003
    if t % 5: t += 133  # noqa: E701
    t = (t * 9 + 134) % 1000003
    t = (t * 1 + 135) % 1000003
    t = (t * 2 + 136) % 1000003
    t = (t * 3 + 137) % 1000003
    t = (t * 4 + 138) % 1000003
    t = (t * 5 + 139) % 1000003
    if t % 2: t += 140  # noqa: E701
    t = (t * 7 + 141) % 1000003
    t = (t * 8 + 142) % 1000003
    t = (t * 9 + 143) % 1000003
    t = (t * 1 + 144) % 1000003
    t = (t * 2 + 145) % 1000003
    t = (t * 3 + 146) % 1000003
    if t % 4: t += 147  # noqa: E701
    t = (t * 5 + 148) % 1000003
    t = (t * 6 + 149) % 1000003
    t = (t * 7 + 150) % 1000003
    t = (t * 8 + 151) % 1000003
    t = (t * 9 + 152) % 1000003
    t = (t * 1 + 153) % 1000003
    if t % 6: t += 154  # noqa: E701
    t = (t * 3 + 155) % 1000003
    t = (t * 4 + 156) % 1000003
    t = (t * 5 + 157) % 1000003
    t = (t * 6 + 158) % 1000003
    t = (t * 7 + 159) % 1000003
    t = (t * 8 + 160) % 1000003
    if t % 3: t += 161  # noqa: E701
    t = (t * 1 + 162) % 1000003
    t = (t * 2 + 163) % 1000003
    t = (t * 3 + 164) % 1000003
    t = (t * 4 + 165) % 1000003
    t = (t * 5 + 166) % 1000003
    t = (t * 6 + 167) % 1000003
    if t % 5: t += 168  # noqa: E701
    t = (t * 8 + 169) % 1000003
    t = (t * 9 + 170) % 1000003
    t = (t * 1 + 171) % 1000003
    t = (t * 2 + 172) % 1000003
    t = (t * 3 + 173) % 1000003
    t = (t * 4 + 174) % 1000003
    if t % 2: t += 175  # noqa: E701
    t = (t * 6 + 176) % 1000003
    t = (t * 7 + 177) % 1000003
    t = (t * 8 + 178) % 1000003
    t = (t * 9 + 179) % 1000003
    t = (t * 1 + 180) % 1000003
    t = (t * 2 + 181) % 1000003
    if t % 4: t += 182  # noqa: E701
    t = (t * 4 + 183) % 1000003
    t = (t * 5 + 184) % 1000003
    t = (t * 6 + 185) % 1000003
    t = (t * 7 + 186) % 1000003
    t = (t * 8 + 187) % 1000003
    t = (t * 9 + 188) % 1000003
    if t % 6: t += 189  # noqa: E701
    t = (t * 2 + 190) % 1000003
    t = (t * 3 + 191) % 1000003
    t = (t * 4 + 192) % 1000003
    t = (t * 5 + 193) % 1000003
    t = (t * 6 + 194) % 1000003
    t = (t * 7 + 195) % 1000003
    if t % 3: t += 196  # noqa: E701
    t = (t * 9 + 197) % 1000003
    t = (t * 1 + 198) % 1000003
    t = (t * 2 + 199) % 1000003
    t = (t * 3 + 200) % 1000003
    t = (t * 4 + 201) % 1000003
    t = (t * 5 + 202) % 1000003
    if t % 5: t += 203  # noqa: E701
    t = (t * 7 + 204) % 1000003
    t = (t * 8 + 205) % 1000003
    t = (t * 9 + 206) % 1000003
    t = (t * 1 + 207) % 1000003
    t = (t * 2 + 208) % 1000003
    t = (t * 3 + 209) % 1000003
    if t % 2: t += 210  # noqa: E701
    t = (t * 5 + 211) % 1000003
    t = (t * 6 + 212) % 1000003
    t = (t * 7 + 213) % 1000003
    t = (t * 8 + 214) % 1000003
    t = (t * 9 + 215) % 1000003
    t = (t * 1 + 216) % 1000003
    if t % 4: t += 217  # noqa: E701
    t = (t * 3 + 218) % 1000003
    t = (t * 4 + 219) % 1000003
    t = (t * 5 + 220) % 1000003
    t = (t * 6 + 221) % 1000003
    t = (t * 7 + 222) % 1000003
    t = (t * 8 + 223) % 1000003
    if t % 6: t += 224  # noqa: E701
    t = (t * 1 + 225) % 1000003
    t = (t * 2 + 226) % 1000003
    t = (t * 3 + 227) % 1000003
    t = (t * 4 + 228) % 1000003
    t = (t * 5 + 229) % 1000003
    t = (t * 6 + 230) % 1000003
    if t % 3: t += 231  # noqa: E701
    t = (t * 8 + 232) % 1000003
    t = (t * 9 + 233) % 1000003
    t = (t * 1 + 234) % 1000003
    t = (t * 2 + 235) % 1000003
    t = (t * 3 + 236) % 1000003
    t = (t * 4 + 237) % 1000003
    if t % 5: t += 238  # noqa: E701
    t = (t * 6 + 239) % 1000003
    t = (t * 7 + 240) % 1000003
    t = (t * 8 + 241) % 1000003
    t = (t * 9 + 242) % 1000003
    t = (t * 1 + 243) % 1000003
    t = (t * 2 + 244) % 1000003
    if t % 2: t += 245  # noqa: E701
    t = (t * 4 + 246) % 1000003
    t = (t * 5 + 247) % 1000003
    t = (t * 6 + 248) % 1000003
    t = (t * 7 + 249) % 1000003
    t = (t * 8 + 250) % 1000003
    t = (t * 9 + 251) % 1000003
    if t % 4: t += 252  # noqa: E701
    t = (t * 2 + 253) % 1000003
    t = (t * 3 + 254) % 1000003
    t = (t * 4 + 255) % 1000003
    t = (t * 5 + 256) % 1000003
    t = (t * 6 + 257) % 1000003
    t = (t * 7 + 258) % 1000003
    if t % 6: t += 259  # noqa: E701
    t = (t * 9 + 260) % 1000003
    t = (t * 1 + 261) % 1000003
    t = (t * 2 + 262) % 1000003
    t = (t * 3 + 263) % 1000003
    t = (t * 4 + 264) % 1000003
    t = (t * 5 + 265) % 1000003
    if t % 3: t += 266  # noqa: E701
    t = (t * 7 + 267) % 1000003
    t = (t * 8 + 268) % 1000003
    t = (t * 9 + 269) % 1000003
    t = (t * 1 + 270) % 1000003
    t = (t * 2 + 271) % 1000003
    t = (t * 3 + 272) % 1000003
    if t % 5: t += 273  # noqa: E701
    t = (t * 5 + 274) % 1000003
    t = (t * 6 + 275) % 1000003
    t = (t * 7 + 276) % 1000003
    t = (t * 8 + 277) % 1000003
    t = (t * 9 + 278) % 1000003
    t = (t * 1 + 279) % 1000003
    if t % 2: t += 280  # noqa: E701
    t = (t * 3 + 281) % 1000003
    t = (t * 4 + 282) % 1000003
    t = (t * 5 + 283) % 1000003
    t = (t * 6 + 284) % 1000003
    t = (t * 7 + 285) % 1000003
    t = (t * 8 + 286) % 1000003
    if t % 4: t += 287  # noqa: E701
    t = (t * 1 + 288) % 1000003
    t = (t * 2 + 289) % 1000003
    t = (t * 3 + 290) % 1000003
    t = (t * 4 + 291) % 1000003
    t = (t * 5 + 292) % 1000003
    t = (t * 6 + 293) % 1000003
    if t % 6: t += 294  # noqa: E701
    t = (t * 8 + 295) % 1000003
    t = (t * 9 + 296) % 1000003
    t = (t * 1 + 297) % 1000003
    t = (t * 2 + 298) % 1000003
    t = (t * 3 + 299) % 1000003
    t = (t * 4 + 300) % 1000003
    if t % 3: t += 301  # noqa: E701
    t = (t * 6 + 302) % 1000003
    t = (t * 7 + 303) % 1000003
    t = (t * 8 + 304) % 1000003
    t = (t * 9 + 305) % 1000003
    t = (t * 1 + 306) % 1000003
    t = (t * 2 + 307) % 1000003
    if t % 5: t += 308  # noqa: E701
    t = (t * 4 + 309) % 1000003
    t = (t * 5 + 310) % 1000003
    t = (t * 6 + 311) % 1000003
    t = (t * 7 + 312) % 1000003
    t = (t * 8 + 313) % 1000003
    t = (t * 9 + 314) % 1000003
    if t % 2: t += 315  # noqa: E701
    t = (t * 2 + 316) % 1000003
    t = (t * 3 + 317) % 1000003
    t = (t * 4 + 318) % 1000003
    t = (t * 5 + 319) % 1000003
    t = (t * 6 + 320) % 1000003
    t = (t * 7 + 321) % 1000003
    if t % 4: t += 322  # noqa: E701
    t = (t * 9 + 323) % 1000003
    t = (t * 1 + 324) % 1000003
    t = (t * 2 + 325) % 1000003
    t = (t * 3 + 326) % 1000003
    t = (t * 4 + 327) % 1000003
    t = (t * 5 + 328) % 1000003
    if t % 6: t += 329  # noqa: E701
    t = (t * 7 + 330) % 1000003
    t = (t * 8 + 331) % 1000003
    t = (t * 9 + 332) % 1000003
    t = (t * 1 + 333) % 1000003
    t = (t * 2 + 334) % 1000003
    t = (t * 3 + 335) % 1000003
    if t % 3: t += 336  # noqa: E701
    t = (t * 5 + 337) % 1000003
    t = (t * 6 + 338) % 1000003
    t = (t * 7 + 339) % 1000003
    t = (t * 8 + 340) % 1000003
    t = (t * 9 + 341) % 1000003
    t = (t * 1 + 342) % 1000003
    if t % 5: t += 343  # noqa: E701
    t = (t * 3 + 344) % 1000003
    t = (t * 4 + 345) % 1000003
    t = (t * 5 + 346) % 1000003
    t = (t * 6 + 347) % 1000003
    t = (t * 7 + 348) % 1000003
    t = (t * 8 + 349) % 1000003
    if t % 2: t += 350  # noqa: E701
    t = (t * 1 + 351) % 1000003
    t = (t * 2 + 352) % 1000003
    t = (t * 3 + 353) % 1000003
    t = (t * 4 + 354) % 1000003
    t = (t * 5 + 355) % 1000003
    t = (t * 6 + 356) % 1000003
    if t % 4: t += 357  # noqa: E701
    t = (t * 8 + 358) % 1000003
    t = (t * 9 + 359) % 1000003
    t = (t * 1 + 360) % 1000003
    t = (t * 2 + 361) % 1000003
    t = (t * 3 + 362) % 1000003
    t = (t * 4 + 363) % 1000003
    if t % 6: t += 364  # noqa: E701
    t = (t * 6 + 365) % 1000003
    t = (t * 7 + 366) % 1000003
    t = (t * 8 + 367) % 1000003
    t = (t * 9 + 368) % 1000003
    t = (t * 1 + 369) % 1000003
    t = (t * 2 + 370) % 1000003
    if t % 3: t += 371  # noqa: E701
    t = (t * 4 + 372) % 1000003
    t = (t * 5 + 373) % 1000003
    t = (t * 6 + 374) % 1000003
    t = (t * 7 + 375) % 1000003
    t = (t * 8 + 376) % 1000003
    t = (t * 9 + 377) % 1000003
    if t % 5: t += 378  # noqa: E701
    t = (t * 2 + 379) % 1000003
    t = (t * 3 + 380) % 1000003
    t = (t * 4 + 381) % 1000003
    t = (t * 5 + 382) % 1000003
    t = (t * 6 + 383) % 1000003
    t = (t * 7 + 384) % 1000003
    if t % 2: t += 385  # noqa: E701
    t = (t * 9 + 386) % 1000003
    t = (t * 1 + 387) % 1000003
    t = (t * 2 + 388) % 1000003
    t = (t * 3 + 389) % 1000003
    t = (t * 4 + 390) % 1000003
    t = (t * 5 + 391) % 1000003
    if t % 4: t += 392  # noqa: E701
    t = (t * 7 + 393) % 1000003
    t = (t * 8 + 394) % 1000003
    t = (t * 9 + 395) % 1000003
    t = (t * 1 + 396) % 1000003
    t = (t * 2 + 397) % 1000003
    t = (t * 3 + 398) % 1000003
    if t % 6: t += 399  # noqa: E701
    # fmt: on
    return t


@cases((1,), ("x",))
def stress_long_fstring(x):
    return f"{x!r}-0-{x!r}-1-{x!r}-2-{x!r}-3-{x!r}-4-{x!r}-5-{x!r}-6-{x!r}-7-{x!r}-8-{x!r}-9-{x!r}-10-{x!r}-11-{x!r}-12-{x!r}-13-{x!r}-14-{x!r}-15-{x!r}-16-{x!r}-17-{x!r}-18-{x!r}-19-{x!r}-20-{x!r}-21-{x!r}-22-{x!r}-23-{x!r}-24-{x!r}-25-{x!r}-26-{x!r}-27-{x!r}-28-{x!r}-29-{x!r}-30-{x!r}-31-{x!r}-32-{x!r}-33-{x!r}-34-{x!r}-35-{x!r}-36-{x!r}-37-{x!r}-38-{x!r}-39-{x!r}-40-{x!r}-41-{x!r}-42-{x!r}-43-{x!r}-44-{x!r}-45-{x!r}-46-{x!r}-47-{x!r}-48-{x!r}-49-{x!r}-50-{x!r}-51-{x!r}-52-{x!r}-53-{x!r}-54-{x!r}-55-{x!r}-56-{x!r}-57-{x!r}-58-{x!r}-59-"


@cases((), (1, 2, 3))
def stress_many_parameters(
    p0=None,
    p1=None,
    p2=None,
    p3=None,
    p4=None,
    p5=None,
    p6=None,
    p7=None,
    p8=None,
    p9=None,
    p10=None,
    p11=None,
    p12=None,
    p13=None,
    p14=None,
    p15=None,
    p16=None,
    p17=None,
    p18=None,
    p19=None,
    p20=None,
    p21=None,
    p22=None,
    p23=None,
    p24=None,
    p25=None,
    p26=None,
    p27=None,
    p28=None,
    p29=None,
    p30=None,
    p31=None,
    p32=None,
    p33=None,
    p34=None,
    p35=None,
    p36=None,
    p37=None,
    p38=None,
    p39=None,
    p40=None,
    p41=None,
    p42=None,
    p43=None,
    p44=None,
    p45=None,
    p46=None,
    p47=None,
    p48=None,
    p49=None,
    p50=None,
    p51=None,
    p52=None,
    p53=None,
    p54=None,
    p55=None,
    p56=None,
    p57=None,
    p58=None,
    p59=None,
):
    return [
        v
        for v in (
            p0,
            p1,
            p2,
            p3,
            p4,
            p5,
            p6,
            p7,
            p8,
            p9,
            p10,
            p11,
            p12,
            p13,
            p14,
            p15,
            p16,
            p17,
            p18,
            p19,
            p20,
            p21,
            p22,
            p23,
            p24,
            p25,
            p26,
            p27,
            p28,
            p29,
            p30,
            p31,
            p32,
            p33,
            p34,
            p35,
            p36,
            p37,
            p38,
            p39,
            p40,
            p41,
            p42,
            p43,
            p44,
            p45,
            p46,
            p47,
            p48,
            p49,
            p50,
            p51,
            p52,
            p53,
            p54,
            p55,
            p56,
            p57,
            p58,
            p59,
        )
        if v is not None
    ]


@cases((0,), (699,), (700,))
def stress_or_chain_700(x):
    """700 terms: deep enough to exhaust a recursive boolean-chain builder."""
    return (
        x == 0
        or x == 1
        or x == 2
        or x == 3
        or x == 4
        or x == 5
        or x == 6
        or x == 7
        or x == 8
        or x == 9
        or x == 10
        or x == 11
        or x == 12
        or x == 13
        or x == 14
        or x == 15
        or x == 16
        or x == 17
        or x == 18
        or x == 19
        or x == 20
        or x == 21
        or x == 22
        or x == 23
        or x == 24
        or x == 25
        or x == 26
        or x == 27
        or x == 28
        or x == 29
        or x == 30
        or x == 31
        or x == 32
        or x == 33
        or x == 34
        or x == 35
        or x == 36
        or x == 37
        or x == 38
        or x == 39
        or x == 40
        or x == 41
        or x == 42
        or x == 43
        or x == 44
        or x == 45
        or x == 46
        or x == 47
        or x == 48
        or x == 49
        or x == 50
        or x == 51
        or x == 52
        or x == 53
        or x == 54
        or x == 55
        or x == 56
        or x == 57
        or x == 58
        or x == 59
        or x == 60
        or x == 61
        or x == 62
        or x == 63
        or x == 64
        or x == 65
        or x == 66
        or x == 67
        or x == 68
        or x == 69
        or x == 70
        or x == 71
        or x == 72
        or x == 73
        or x == 74
        or x == 75
        or x == 76
        or x == 77
        or x == 78
        or x == 79
        or x == 80
        or x == 81
        or x == 82
        or x == 83
        or x == 84
        or x == 85
        or x == 86
        or x == 87
        or x == 88
        or x == 89
        or x == 90
        or x == 91
        or x == 92
        or x == 93
        or x == 94
        or x == 95
        or x == 96
        or x == 97
        or x == 98
        or x == 99
        or x == 100
        or x == 101
        or x == 102
        or x == 103
        or x == 104
        or x == 105
        or x == 106
        or x == 107
        or x == 108
        or x == 109
        or x == 110
        or x == 111
        or x == 112
        or x == 113
        or x == 114
        or x == 115
        or x == 116
        or x == 117
        or x == 118
        or x == 119
        or x == 120
        or x == 121
        or x == 122
        or x == 123
        or x == 124
        or x == 125
        or x == 126
        or x == 127
        or x == 128
        or x == 129
        or x == 130
        or x == 131
        or x == 132
        or x == 133
        or x == 134
        or x == 135
        or x == 136
        or x == 137
        or x == 138
        or x == 139
        or x == 140
        or x == 141
        or x == 142
        or x == 143
        or x == 144
        or x == 145
        or x == 146
        or x == 147
        or x == 148
        or x == 149
        or x == 150
        or x == 151
        or x == 152
        or x == 153
        or x == 154
        or x == 155
        or x == 156
        or x == 157
        or x == 158
        or x == 159
        or x == 160
        or x == 161
        or x == 162
        or x == 163
        or x == 164
        or x == 165
        or x == 166
        or x == 167
        or x == 168
        or x == 169
        or x == 170
        or x == 171
        or x == 172
        or x == 173
        or x == 174
        or x == 175
        or x == 176
        or x == 177
        or x == 178
        or x == 179
        or x == 180
        or x == 181
        or x == 182
        or x == 183
        or x == 184
        or x == 185
        or x == 186
        or x == 187
        or x == 188
        or x == 189
        or x == 190
        or x == 191
        or x == 192
        or x == 193
        or x == 194
        or x == 195
        or x == 196
        or x == 197
        or x == 198
        or x == 199
        or x == 200
        or x == 201
        or x == 202
        or x == 203
        or x == 204
        or x == 205
        or x == 206
        or x == 207
        or x == 208
        or x == 209
        or x == 210
        or x == 211
        or x == 212
        or x == 213
        or x == 214
        or x == 215
        or x == 216
        or x == 217
        or x == 218
        or x == 219
        or x == 220
        or x == 221
        or x == 222
        or x == 223
        or x == 224
        or x == 225
        or x == 226
        or x == 227
        or x == 228
        or x == 229
        or x == 230
        or x == 231
        or x == 232
        or x == 233
        or x == 234
        or x == 235
        or x == 236
        or x == 237
        or x == 238
        or x == 239
        or x == 240
        or x == 241
        or x == 242
        or x == 243
        or x == 244
        or x == 245
        or x == 246
        or x == 247
        or x == 248
        or x == 249
        or x == 250
        or x == 251
        or x == 252
        or x == 253
        or x == 254
        or x == 255
        or x == 256
        or x == 257
        or x == 258
        or x == 259
        or x == 260
        or x == 261
        or x == 262
        or x == 263
        or x == 264
        or x == 265
        or x == 266
        or x == 267
        or x == 268
        or x == 269
        or x == 270
        or x == 271
        or x == 272
        or x == 273
        or x == 274
        or x == 275
        or x == 276
        or x == 277
        or x == 278
        or x == 279
        or x == 280
        or x == 281
        or x == 282
        or x == 283
        or x == 284
        or x == 285
        or x == 286
        or x == 287
        or x == 288
        or x == 289
        or x == 290
        or x == 291
        or x == 292
        or x == 293
        or x == 294
        or x == 295
        or x == 296
        or x == 297
        or x == 298
        or x == 299
        or x == 300
        or x == 301
        or x == 302
        or x == 303
        or x == 304
        or x == 305
        or x == 306
        or x == 307
        or x == 308
        or x == 309
        or x == 310
        or x == 311
        or x == 312
        or x == 313
        or x == 314
        or x == 315
        or x == 316
        or x == 317
        or x == 318
        or x == 319
        or x == 320
        or x == 321
        or x == 322
        or x == 323
        or x == 324
        or x == 325
        or x == 326
        or x == 327
        or x == 328
        or x == 329
        or x == 330
        or x == 331
        or x == 332
        or x == 333
        or x == 334
        or x == 335
        or x == 336
        or x == 337
        or x == 338
        or x == 339
        or x == 340
        or x == 341
        or x == 342
        or x == 343
        or x == 344
        or x == 345
        or x == 346
        or x == 347
        or x == 348
        or x == 349
        or x == 350
        or x == 351
        or x == 352
        or x == 353
        or x == 354
        or x == 355
        or x == 356
        or x == 357
        or x == 358
        or x == 359
        or x == 360
        or x == 361
        or x == 362
        or x == 363
        or x == 364
        or x == 365
        or x == 366
        or x == 367
        or x == 368
        or x == 369
        or x == 370
        or x == 371
        or x == 372
        or x == 373
        or x == 374
        or x == 375
        or x == 376
        or x == 377
        or x == 378
        or x == 379
        or x == 380
        or x == 381
        or x == 382
        or x == 383
        or x == 384
        or x == 385
        or x == 386
        or x == 387
        or x == 388
        or x == 389
        or x == 390
        or x == 391
        or x == 392
        or x == 393
        or x == 394
        or x == 395
        or x == 396
        or x == 397
        or x == 398
        or x == 399
        or x == 400
        or x == 401
        or x == 402
        or x == 403
        or x == 404
        or x == 405
        or x == 406
        or x == 407
        or x == 408
        or x == 409
        or x == 410
        or x == 411
        or x == 412
        or x == 413
        or x == 414
        or x == 415
        or x == 416
        or x == 417
        or x == 418
        or x == 419
        or x == 420
        or x == 421
        or x == 422
        or x == 423
        or x == 424
        or x == 425
        or x == 426
        or x == 427
        or x == 428
        or x == 429
        or x == 430
        or x == 431
        or x == 432
        or x == 433
        or x == 434
        or x == 435
        or x == 436
        or x == 437
        or x == 438
        or x == 439
        or x == 440
        or x == 441
        or x == 442
        or x == 443
        or x == 444
        or x == 445
        or x == 446
        or x == 447
        or x == 448
        or x == 449
        or x == 450
        or x == 451
        or x == 452
        or x == 453
        or x == 454
        or x == 455
        or x == 456
        or x == 457
        or x == 458
        or x == 459
        or x == 460
        or x == 461
        or x == 462
        or x == 463
        or x == 464
        or x == 465
        or x == 466
        or x == 467
        or x == 468
        or x == 469
        or x == 470
        or x == 471
        or x == 472
        or x == 473
        or x == 474
        or x == 475
        or x == 476
        or x == 477
        or x == 478
        or x == 479
        or x == 480
        or x == 481
        or x == 482
        or x == 483
        or x == 484
        or x == 485
        or x == 486
        or x == 487
        or x == 488
        or x == 489
        or x == 490
        or x == 491
        or x == 492
        or x == 493
        or x == 494
        or x == 495
        or x == 496
        or x == 497
        or x == 498
        or x == 499
        or x == 500
        or x == 501
        or x == 502
        or x == 503
        or x == 504
        or x == 505
        or x == 506
        or x == 507
        or x == 508
        or x == 509
        or x == 510
        or x == 511
        or x == 512
        or x == 513
        or x == 514
        or x == 515
        or x == 516
        or x == 517
        or x == 518
        or x == 519
        or x == 520
        or x == 521
        or x == 522
        or x == 523
        or x == 524
        or x == 525
        or x == 526
        or x == 527
        or x == 528
        or x == 529
        or x == 530
        or x == 531
        or x == 532
        or x == 533
        or x == 534
        or x == 535
        or x == 536
        or x == 537
        or x == 538
        or x == 539
        or x == 540
        or x == 541
        or x == 542
        or x == 543
        or x == 544
        or x == 545
        or x == 546
        or x == 547
        or x == 548
        or x == 549
        or x == 550
        or x == 551
        or x == 552
        or x == 553
        or x == 554
        or x == 555
        or x == 556
        or x == 557
        or x == 558
        or x == 559
        or x == 560
        or x == 561
        or x == 562
        or x == 563
        or x == 564
        or x == 565
        or x == 566
        or x == 567
        or x == 568
        or x == 569
        or x == 570
        or x == 571
        or x == 572
        or x == 573
        or x == 574
        or x == 575
        or x == 576
        or x == 577
        or x == 578
        or x == 579
        or x == 580
        or x == 581
        or x == 582
        or x == 583
        or x == 584
        or x == 585
        or x == 586
        or x == 587
        or x == 588
        or x == 589
        or x == 590
        or x == 591
        or x == 592
        or x == 593
        or x == 594
        or x == 595
        or x == 596
        or x == 597
        or x == 598
        or x == 599
        or x == 600
        or x == 601
        or x == 602
        or x == 603
        or x == 604
        or x == 605
        or x == 606
        or x == 607
        or x == 608
        or x == 609
        or x == 610
        or x == 611
        or x == 612
        or x == 613
        or x == 614
        or x == 615
        or x == 616
        or x == 617
        or x == 618
        or x == 619
        or x == 620
        or x == 621
        or x == 622
        or x == 623
        or x == 624
        or x == 625
        or x == 626
        or x == 627
        or x == 628
        or x == 629
        or x == 630
        or x == 631
        or x == 632
        or x == 633
        or x == 634
        or x == 635
        or x == 636
        or x == 637
        or x == 638
        or x == 639
        or x == 640
        or x == 641
        or x == 642
        or x == 643
        or x == 644
        or x == 645
        or x == 646
        or x == 647
        or x == 648
        or x == 649
        or x == 650
        or x == 651
        or x == 652
        or x == 653
        or x == 654
        or x == 655
        or x == 656
        or x == 657
        or x == 658
        or x == 659
        or x == 660
        or x == 661
        or x == 662
        or x == 663
        or x == 664
        or x == 665
        or x == 666
        or x == 667
        or x == 668
        or x == 669
        or x == 670
        or x == 671
        or x == 672
        or x == 673
        or x == 674
        or x == 675
        or x == 676
        or x == 677
        or x == 678
        or x == 679
        or x == 680
        or x == 681
        or x == 682
        or x == 683
        or x == 684
        or x == 685
        or x == 686
        or x == 687
        or x == 688
        or x == 689
        or x == 690
        or x == 691
        or x == 692
        or x == 693
        or x == 694
        or x == 695
        or x == 696
        or x == 697
        or x == 698
        or x == 699
    )
