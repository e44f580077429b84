"""Mixed precision and device types: TL201 cuda-amp-on-other-device, TL202 device-type-sniffing."""
