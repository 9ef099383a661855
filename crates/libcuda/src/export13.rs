//! The private table CUDA 13 runtimes ask for first (`21318C60-9714-3248-8CA6-
//! 41FF7324C8F2`): without it the runtime refuses to start (`cudaErrorInvalidValue` on
//! its first call). The driver serves it as its size and 94 entries; what the entries
//! compute is not documented, and the CUDA 13.5 runtime's device, memory, stream and
//! kernel-launch paths call none of them. Here each entry returns
//! `CUDA_ERROR_NOT_SUPPORTED` and names itself under `PTXJIT_CUDA_TRACE=1`, so a
//! program that reaches one says which.

use crate::*;

macro_rules! entries {
    ($($n:literal => $f:ident),* $(,)?) => {
        $(
            unsafe extern "C" fn $f(_: usize, _: usize, _: usize, _: usize, _: usize, _: usize) -> CUresult {
                not_supported(concat!("cuGetExportTable table 21318C60, entry ", $n))
            }
        )*
        /// The table: its size in bytes, then the entries.
        pub static TABLE: export::Table<95> = export::Table([
            (95 * std::mem::size_of::<usize>()) as *const c_void,
            $($f as *const c_void),*
        ]);
    };
}

entries! {
    1 => e1, 2 => e2, 3 => e3, 4 => e4, 5 => e5, 6 => e6, 7 => e7, 8 => e8, 9 => e9,
    10 => e10, 11 => e11, 12 => e12, 13 => e13, 14 => e14, 15 => e15, 16 => e16,
    17 => e17, 18 => e18, 19 => e19, 20 => e20, 21 => e21, 22 => e22, 23 => e23,
    24 => e24, 25 => e25, 26 => e26, 27 => e27, 28 => e28, 29 => e29, 30 => e30,
    31 => e31, 32 => e32, 33 => e33, 34 => e34, 35 => e35, 36 => e36, 37 => e37,
    38 => e38, 39 => e39, 40 => e40, 41 => e41, 42 => e42, 43 => e43, 44 => e44,
    45 => e45, 46 => e46, 47 => e47, 48 => e48, 49 => e49, 50 => e50, 51 => e51,
    52 => e52, 53 => e53, 54 => e54, 55 => e55, 56 => e56, 57 => e57, 58 => e58,
    59 => e59, 60 => e60, 61 => e61, 62 => e62, 63 => e63, 64 => e64, 65 => e65,
    66 => e66, 67 => e67, 68 => e68, 69 => e69, 70 => e70, 71 => e71, 72 => e72,
    73 => e73, 74 => e74, 75 => e75, 76 => e76, 77 => e77, 78 => e78, 79 => e79,
    80 => e80, 81 => e81, 82 => e82, 83 => e83, 84 => e84, 85 => e85, 86 => e86,
    87 => e87, 88 => e88, 89 => e89, 90 => e90, 91 => e91, 92 => e92, 93 => e93,
    94 => e94,
}
