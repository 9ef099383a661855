//! MD2 (RFC 1319) and HMAC (RFC 2104) over it: the CUDA runtime checks the driver's
//! answer to its integrity challenge with HMAC-MD2 (see [`crate::export`]).

/// RFC 1319's substitution table, built from the digits of pi.
const S: [u8; 256] = [
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199,
    115, 140, 152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66,
    111, 24, 138, 23, 229, 18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47,
    238, 122, 169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93,
    154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209,
    215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226,
    156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81,
    175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
    244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14,
    102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26,
    219, 153, 141, 51, 159, 17, 131, 20,
];

/// Incremental MD2.
#[derive(Clone)]
pub struct Md2 {
    state: [u8; 48],
    checksum: [u8; 16],
    block: [u8; 16],
    len: usize,
}

impl Default for Md2 {
    fn default() -> Self {
        Md2 {
            state: [0; 48],
            checksum: [0; 16],
            block: [0; 16],
            len: 0,
        }
    }
}

impl Md2 {
    fn compress(&mut self, block: &[u8; 16]) {
        // Checksum (RFC 1319 3.2, with the erratum: L = C[j] ^= S[c ^ L]).
        let mut l = self.checksum[15];
        for (c, &b) in self.checksum.iter_mut().zip(block) {
            *c ^= S[(b ^ l) as usize];
            l = *c;
        }
        for (i, &b) in block.iter().enumerate() {
            self.state[16 + i] = b;
            self.state[32 + i] = self.state[i] ^ b;
        }
        let mut t = 0u8;
        for round in 0..18u8 {
            for x in self.state.iter_mut() {
                *x ^= S[t as usize];
                t = *x;
            }
            t = t.wrapping_add(round);
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.block[self.len] = b;
            self.len += 1;
            if self.len == 16 {
                let block = self.block;
                self.compress(&block);
                self.len = 0;
            }
        }
    }

    pub fn finish(mut self) -> [u8; 16] {
        let pad = (16 - self.len) as u8;
        self.update(&vec![pad; pad as usize]);
        let checksum = self.checksum;
        self.compress(&checksum);
        let mut out = [0u8; 16];
        out.copy_from_slice(&self.state[..16]);
        out
    }
}

/// MD2 of `data`.
pub fn md2(data: &[u8]) -> [u8; 16] {
    let mut h = Md2::default();
    h.update(data);
    h.finish()
}

/// HMAC-MD2 with a 16-byte key (MD2's block size, so the key is used as it is).
pub fn hmac_md2(key: &[u8; 16], message: &[u8]) -> [u8; 16] {
    let mut inner = Md2::default();
    inner.update(&key.map(|k| k ^ 0x36));
    inner.update(message);
    let ih = inner.finish();
    let mut outer = Md2::default();
    outer.update(&key.map(|k| k ^ 0x5c));
    outer.update(&ih);
    outer.finish()
}
