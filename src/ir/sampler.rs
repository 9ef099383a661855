//! The sampler state of a `.samplerref` (the independent texturing mode's sampler) and
//! the CUDA address modes it names: what a module's `.samplerref` initializer means, packed
//! into the variable's 8 bytes by the checker and read back by the runtime
//! (`crate::exec::sampler` applies it to a fetch).

/// `CUaddress_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap = 0,
    Clamp = 1,
    Mirror = 2,
    Border = 3,
}

impl AddressMode {
    pub fn from_code(c: u32) -> Option<AddressMode> {
        Some(match c {
            0 => AddressMode::Wrap,
            1 => AddressMode::Clamp,
            2 => AddressMode::Mirror,
            3 => AddressMode::Border,
            _ => return None,
        })
    }
}

/// The sampler state of a `.samplerref`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    /// `addr_mode_0` .. `addr_mode_2`.
    pub address: [AddressMode; 3],
    /// `filter_mode = linear` (else nearest).
    pub linear: bool,
    /// `force_unnormalized_coords = 1`.
    pub force_unnormalized: bool,
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler {
            address: [AddressMode::Wrap; 3],
            linear: false,
            force_unnormalized: false,
        }
    }
}

/// Marks the 8 bytes of an initialised `.samplerref` (byte 7).
const MARK: u8 = 0x5a;

impl Sampler {
    /// The 8 bytes of a `.samplerref` variable holding this state: the address modes
    /// (`CUaddress_mode` codes), the filter, the override, and a mark.
    pub fn to_bytes(&self) -> [u8; 8] {
        let a = self.address.map(|m| m as u8);
        [
            a[0],
            a[1],
            a[2],
            self.linear as u8,
            self.force_unnormalized as u8,
            0,
            0,
            MARK,
        ]
    }

    /// The inverse of [`Sampler::to_bytes`]; all-zero bytes (a `.samplerref` without
    /// initializer) give the defaults.
    pub fn from_bytes(b: &[u8]) -> Option<Sampler> {
        match b {
            [0, 0, 0, 0, 0, 0, 0, 0] => Some(Sampler::default()),
            [a0, a1, a2, f, u, 0, 0, MARK] => Some(Sampler {
                address: [
                    AddressMode::from_code(*a0 as u32)?,
                    AddressMode::from_code(*a1 as u32)?,
                    AddressMode::from_code(*a2 as u32)?,
                ],
                linear: *f != 0,
                force_unnormalized: *u != 0,
            }),
            _ => None,
        }
    }

    /// Sets the initializer field `name` to `value` (the ISA's enumerators, or 0/1 for
    /// `force_unnormalized_coords`); an error message for an unknown field or value
    /// (`clamp_ogl`, whose coordinate clamp CUDA does not define, included).
    pub fn set_field(&mut self, name: &str, value: &str) -> Result<(), String> {
        let addr =
            |v: &str| -> Result<AddressMode, String> {
                Ok(match v {
                    "wrap" => AddressMode::Wrap,
                    "mirror" => AddressMode::Mirror,
                    "clamp_to_edge" => AddressMode::Clamp,
                    "clamp_to_border" => AddressMode::Border,
                    "clamp_ogl" => return Err(
                        "address mode 'clamp_ogl' is not supported yet (CUDA defines no such mode)"
                            .into(),
                    ),
                    _ => return Err(format!("'{v}' is not an address mode")),
                })
            };
        match name {
            "addr_mode_0" => self.address[0] = addr(value)?,
            "addr_mode_1" => self.address[1] = addr(value)?,
            "addr_mode_2" => self.address[2] = addr(value)?,
            "filter_mode" => {
                self.linear = match value {
                    "nearest" => false,
                    "linear" => true,
                    _ => return Err(format!("'{value}' is not a filter mode")),
                }
            }
            "force_unnormalized_coords" => {
                self.force_unnormalized = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(format!("'{value}' is not 0 or 1")),
                }
            }
            _ => return Err(format!("'{name}' is not a '.samplerref' field")),
        }
        Ok(())
    }

    /// `txq`'s answer for a sampler query on this sampler (ISA encodings:
    /// `.filter_mode` nearest 0 / linear 1; `.addr_mode_N` wrap 0, mirror 1,
    /// clamp_to_edge 3, clamp_to_border 4), or `None` for a texture query.
    pub fn query(&self, q: super::TexQuery) -> Option<u32> {
        use super::TexQuery;
        Some(match q {
            TexQuery::ForceUnnormalizedCoords => self.force_unnormalized as u32,
            TexQuery::FilterMode => self.linear as u32,
            TexQuery::AddrMode(k) => addr_code(self.address[k.min(2) as usize]),
            _ => return None,
        })
    }
}

/// The ISA's `.addr_mode_N` encoding of a CUDA address mode.
pub fn addr_code(m: AddressMode) -> u32 {
    match m {
        AddressMode::Wrap => 0,
        AddressMode::Mirror => 1,
        AddressMode::Clamp => 3,
        AddressMode::Border => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        let mut s = Sampler::default();
        assert_eq!(Sampler::from_bytes(&[0; 8]), Some(s));
        s.set_field("addr_mode_1", "clamp_to_border").unwrap();
        s.set_field("filter_mode", "linear").unwrap();
        s.set_field("force_unnormalized_coords", "1").unwrap();
        assert_eq!(s.address[1], AddressMode::Border);
        assert_eq!(Sampler::from_bytes(&s.to_bytes()), Some(s));
        assert!(s.set_field("addr_mode_0", "clamp_ogl").is_err());
        assert!(s.set_field("width", "4").is_err());
        assert_eq!(Sampler::from_bytes(&[1, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
