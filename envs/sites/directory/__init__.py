"""The local-services directory contract site: places, hours, map distances, CAPTCHA walls."""
