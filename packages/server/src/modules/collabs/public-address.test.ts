import { describe, expect, it } from 'vitest';
import { BlockedAddressError, isPublicAddress, resolvePublicAddresses } from './public-address.js';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2001:4860:4860::8888', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['192.0.2.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::7f00:1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('resolvePublicAddresses', () => {
  it('refuses a name that resolves to loopback unless private addresses are allowed', async () => {
    await expect(resolvePublicAddresses('localhost', false)).rejects.toBeInstanceOf(BlockedAddressError);
    const allowed = await resolvePublicAddresses('localhost', true);
    expect(allowed.map((a) => a.address)).toContain('127.0.0.1');
  });

  it('takes an IP literal as it is, without DNS', async () => {
    expect(await resolvePublicAddresses('8.8.8.8', false)).toEqual([{ address: '8.8.8.8', family: 4 }]);
    await expect(resolvePublicAddresses('10.0.0.1', false)).rejects.toBeInstanceOf(BlockedAddressError);
  });
});
